#!/usr/bin/env python3
"""Shows what Courier's library products link on each platform, from the package manifests.

No Apple SDK can run here, so the Apple build graph is worked out from the manifests instead:
`swift package dump-package` of Courier and of every resolved dependency (.build/checkouts, so
`swift build` or `swift package resolve` must have run), with each dependency's platform and
trait conditions evaluated as an Apple build with Courier's default traits would evaluate them.
Each library product's targets are followed, target by target and product by product, into
the dependencies.

Fails when an Apple platform with default traits reaches a package that must stay off Apple
platforms (SwiftNIO, async-http-client, BoringSSL through swift-crypto), and, as a check of the
check, when Linux with default traits or macOS with `AsyncHTTPClientOnApple` does not reach
async-http-client.

  python3 .ci/apple/graph.py
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKOUTS = os.path.join(ROOT, ".build", "checkouts")
LIBRARIES = ["Courier", "CourierOAuth", "CourierConnectivity", "CourierTesting", "CourierXML", "CourierEndpoints", "CourierWebSockets"]
OFF_APPLE = {"async-http-client", "swift-nio", "swift-nio-ssl", "swift-nio-http2", "swift-nio-extras",
             "swift-nio-transport-services", "swift-crypto"}
APPLE = ["macos", "ios", "tvos", "watchos", "visionos"]

_manifests = {}


def manifest(identity):
    """The dumped manifest of the package `identity` ("" is Courier itself)."""
    if identity not in _manifests:
        path = ROOT
        if identity:
            names = {name.lower(): name for name in os.listdir(CHECKOUTS)}
            if identity not in names:
                raise SystemExit(f"graph.py: {identity} is not in .build/checkouts: run `swift package resolve`")
            path = os.path.join(CHECKOUTS, names[identity])
        output = subprocess.run(["swift", "package", "dump-package", "--package-path", path],
                                check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        _manifests[identity] = json.loads(output)
    return _manifests[identity]


def enabled_traits(package, requested):
    """`requested` (None: the package's defaults) with the traits they enable, transitively."""
    traits = {trait["name"]: trait.get("enabledTraits", []) for trait in package.get("traits", [])}
    pending = list(traits.get("default", [])) if requested is None else list(requested)
    enabled = set()
    while pending:
        name = pending.pop()
        if name not in enabled and name != "default":
            enabled.add(name)
            pending += traits.get(name, [])
    return enabled


def applies(condition, platform, traits):
    if not condition:
        return True
    platforms = condition.get("platformNames") or []
    if platforms and platform not in platforms:
        return False
    wanted = condition.get("traits") or []
    return not wanted or any(trait in traits for trait in wanted)


def dependency_identity(package, name):
    """The identity of `package`'s dependency called `name` in a `.product(package:)`."""
    for dependency in package["dependencies"]:
        kind, = dependency.values()
        entry = kind[0]
        if entry["identity"] == name.lower() or entry.get("nameForTargetDependencyResolutionOnly", "").lower() == name.lower():
            return entry["identity"]
    return name.lower()


def reach(platform, root_traits):
    """The packages Courier's library products reach on `platform`."""
    reached = set()
    seen = set()
    pending = [("", "target", name) for name in LIBRARIES]
    while pending:
        identity, kind, name = pending.pop()
        if (identity, kind, name) in seen:
            continue
        seen.add((identity, kind, name))
        package = manifest(identity)
        traits = enabled_traits(package, root_traits if identity == "" else None)
        if kind == "product":
            reached.add(identity)
            product = next(p for p in package["products"] if p["name"] == name)
            pending += [(identity, "target", target) for target in product["targets"]]
            continue
        target = next((t for t in package["targets"] if t["name"] == name), None)
        if target is None:  # a by-name product of some dependency
            for dependency in package["dependencies"]:
                other = dependency_identity(package, list(dependency.values())[0][0]["identity"])
                if any(p["name"] == name for p in manifest(other)["products"]):
                    pending.append((other, "product", name))
                    break
            continue
        for dependency in target["dependencies"]:
            (kind_name, value), = dependency.items()
            condition = value[-1] if isinstance(value[-1], dict) or value[-1] is None else None
            if not applies(condition, platform, traits):
                continue
            if kind_name == "product":
                pending.append((dependency_identity(package, value[1]), "product", value[0]))
            else:
                pending.append((identity, "target", value[0]))
    return reached


def duplicate_products():
    """Products a Courier target lists twice: SwiftPM keeps one entry and drops the other's
    condition, so the graph would not be the one the manifest reads as."""
    found = []
    for target in manifest("")["targets"]:
        names = [tuple(value[:2]) for dependency in target["dependencies"] for kind, value in dependency.items()
                 if kind == "product"]
        found += [f"{target['name']} lists {name} of {package} twice" for name, package in set(names)
                  if names.count((name, package)) > 1]
    return found


def main():
    failures = duplicate_products()
    for platform in APPLE:
        reached = reach(platform, None)
        print(f"{platform} (default traits): {', '.join(sorted(reached))}")
        failures += [f"{platform} reaches {name}" for name in sorted(reached & OFF_APPLE)]
    linux = reach("linux", None)
    print(f"linux (default traits): {', '.join(sorted(linux))}")
    if "async-http-client" not in linux:
        failures.append("linux with default traits does not reach async-http-client: the check is broken")
    on_apple = reach("macos", ["EncryptedTokenStore", "AsyncHTTPClientOnApple"])
    print(f"macos (AsyncHTTPClientOnApple): {', '.join(sorted(on_apple))}")
    if "async-http-client" not in on_apple:
        failures.append("macos with AsyncHTTPClientOnApple does not reach async-http-client: the check is broken")
    if failures:
        print("\n".join(failures))
        raise SystemExit("graph.py: the Apple graph is wrong")
    print("Apple platforms with default traits link nothing from SwiftNIO, async-http-client or swift-crypto")


if __name__ == "__main__":
    main()
