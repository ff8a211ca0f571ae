#!/usr/bin/env python3
"""Compiles a small consumer of Courier from outside the package, as a user's app is compiled.

Inside the package (tests, other modules) Swift treats Courier's enums as exhaustive, so what a
user outside it sees can only be checked from outside: this script type-checks
.ci/consumer/Consumer.swift against the debug build's modules with no `-package-name`, and
fails unless
  - the file compiles (with its `@unknown default`s), and so does
    .ci/consumer/EndpointsConsumer.swift (`import CourierEndpoints`: the declarative style
    needs none of the `package` names it is built with), and
  - a `switch` over each failure enum without `@unknown default` is diagnosed: the enums that
    may gain cases (`@nonexhaustive`) say so to their users.

  swift build && python3 .ci/consumer.py
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "apple"))
from typecheck import ROOT, search_paths, swiftpm_args  # noqa: E402

SOURCES = [os.path.join(ROOT, ".ci", "consumer", name) for name in ("Consumer.swift", "EndpointsConsumer.swift")]
# Each enum, and a `switch` over it that lists a case and no `@unknown default`.
EXHAUSTIVE_SWITCHES = {
    "CourierError": "switch error { case .cancelled: break }",
    "InvalidRequest": "switch failure { case .bodyNotReplayable: break }",
    "TransportFailure.Kind": "switch kind { case .timedOut: break }",
    "AuthEvent": "switch event { case .signedOut: break }",
}
PARAMETERS = {"CourierError": "error: CourierError", "InvalidRequest": "failure: InvalidRequest",
              "TransportFailure.Kind": "kind: TransportFailure.Kind", "AuthEvent": "event: AuthEvent"}


def typecheck(path):
    args = ["swiftc", "-typecheck", "-swift-version", "6"] + search_paths(swiftpm_args("Courier")) + [path]
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout


def main():
    for source in SOURCES:
        output = typecheck(source)
        if re.search(r": (error|warning): ", output):
            print(output)
            raise SystemExit(f"consumer.py: {os.path.basename(source)} does not compile cleanly")
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for name, switch in EXHAUSTIVE_SWITCHES.items():
            path = os.path.join(work, "Switch.swift")
            with open(path, "w") as file:
                file.write(f"import Courier\n\nfunc handle({PARAMETERS[name]}) {{\n    {switch}\n}}\n")
            output = typecheck(path)
            if "@unknown default" not in output:
                failures.append(f"a switch over {name} without @unknown default is not diagnosed:\n{output}")
            else:
                print(f"{name}: a switch without @unknown default is diagnosed")
    if failures:
        print("\n".join(failures))
        raise SystemExit("consumer.py: an enum that may grow is exhaustive for users")
    print("consumer: Consumer.swift and EndpointsConsumer.swift compile from outside the package")


if __name__ == "__main__":
    main()
