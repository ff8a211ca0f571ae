#!/usr/bin/env python3
"""Fails when a module's public surface grows past its budget.

A public declaration is a line that starts with `public ` or `open ` and is not an import or an
extension (the count Shape II set). Raising a budget is a design decision: say why in the commit.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = {
    "Courier": 550,
    "CourierConnectivity": 15,
    "CourierEndpoints": 64,
    "CourierOAuth": 101,
    "CourierOpenAPI": 5,
    "CourierTesting": 107,
    "CourierWebSockets": 23,
    "CourierXML": 134,
    "CourierAsyncHTTPClientOnApple": 0,
}
DECLARATION = re.compile(r"^\s*(public|open) (?!import\b|extension\b)")


def count(module):
    total = 0
    for folder, _, files in os.walk(os.path.join(ROOT, "Sources", module)):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(folder, name), encoding="utf-8") as source:
                    total += sum(1 for line in source if DECLARATION.match(line))
    return total


def main():
    modules = sorted(os.listdir(os.path.join(ROOT, "Sources")))
    failures = [f"{m}: no budget (add one to .ci/surface.py)" for m in modules if m not in BUDGETS]
    for module in modules:
        if module in BUDGETS and count(module) > BUDGETS[module]:
            failures.append(f"{module}: {count(module)} public declarations, over its budget of {BUDGETS[module]}")
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(", ".join(f"{m} {count(m)}/{BUDGETS[m]}" for m in modules))


if __name__ == "__main__":
    main()
