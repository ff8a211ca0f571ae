#!/usr/bin/env python3
"""Type-checks Courier's Apple-only code on Linux, against stand-in modules.

No Apple SDK can run here, so for each Apple platform this script:
  1. builds the stand-in modules of .ci/apple/StandIns/ (Darwin, os, Combine, Network, Security,
     AuthenticationServices: only the declarations Courier uses, each file says where they come from);
  2. copies the sources of the library targets with every `#if`/`#elseif` condition evaluated
     as that platform would (`os(Linux)` false, `os(iOS)` true on iOS, `canImport(Glibc)` false,
     `canImport(Darwin)` true, ...), so the Apple branches are the ones compiled;
  3. compiles each target to a module in Swift 6 mode with the exact flags SwiftPM uses for it (read from
     .build/debug.yaml, so a `swift build` must have run), plus the stand-ins, with Foundation's
     networking and XML parts imported implicitly (on Apple platforms they are part of Foundation).

What it proves: the Apple branches parse, name only declarations that exist (in the stand-ins'
copy of the SDK or in Foundation), and pass strict concurrency checking with the package's
settings. What it cannot prove: that corelibs Foundation declares a type as Apple's does, or
availability (Swift checks availability only for the platform it compiles for; the stand-ins'
`@available` attributes are checked against the package's minimums by --check-availability).

  python3 .ci/apple/typecheck.py                  # every platform
  python3 .ci/apple/typecheck.py macOS tvOS        # some
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAND_INS = os.path.join(ROOT, ".ci", "apple", "StandIns")
PLATFORMS = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]
# The package's minimums (Package.swift `platforms:`); visionOS has no minimum there, so its first.
MINIMUMS = {"macOS": (13, 0), "iOS": (16, 0), "tvOS": (16, 0), "watchOS": (9, 0), "visionOS": (1, 0)}
# Targets to check, in dependency order.
TARGETS = ["Courier", "CourierConnectivity", "CourierOAuth", "CourierTesting", "CourierXML"]
# Targets whose conditions tell Apple platforms apart: checked on every platform; the rest once.
PER_PLATFORM_TARGETS = ["Courier", "CourierConnectivity", "CourierOAuth"]
# Stand-in modules, in dependency order; each is StandIns/<name>.swift.
STAND_IN_MODULES = ["Darwin", "os", "Combine", "Network", "Security", "AuthenticationServices", "AppleFoundation",
                    "CommonCrypto", "CryptoKit"]
# Modules that exist on every Apple platform; the rest of a canImport is decided below.
# Testing: Swift Testing ships with the toolchain (Xcode 16 and later); the host's module stands in.
APPLE_MODULES = {"Darwin", "os", "Combine", "Network", "Security", "AuthenticationServices", "Dispatch",
                 "Foundation", "ObjectiveC", "CryptoKit", "CommonCrypto", "Testing"}
NOT_ON_APPLE = {"Glibc", "Musl", "Android", "WinSDK", "FoundationNetworking", "FoundationXML",
                "FoundationEssentials"}
DEPENDENCY_MODULES = {"HTTPTypes", "HTTPTypesFoundation", "Logging", "Tracing", "CoreMetrics", "Crypto",
                      "_CryptoExtras", "AsyncHTTPClient", "NIOCore", "NIOHTTP1", "NIOPosix", "NIOSSL",
                      "XMLCoder", "Instrumentation", "ServiceContextModule", "Courier", "CourierTesting",
                      "CourierOAuth", "CourierConnectivity", "CourierXML"}


def evaluate(condition, platform):
    """The condition of an #if line with the platform tests replaced by true/false."""
    def os_test(match):
        return "true" if match.group(1) == platform else "false"

    def can_import(match):
        name = match.group(1).strip()
        if name in NOT_ON_APPLE:
            return "false"
        if name in APPLE_MODULES:
            return "true"
        if name in DEPENDENCY_MODULES:
            return "true"
        raise SystemExit(f"typecheck.py: no rule for canImport({name}); add it to APPLE_MODULES or NOT_ON_APPLE")

    condition = re.sub(r"\bos\(\s*(\w+)\s*\)", os_test, condition)
    condition = re.sub(r"\bcanImport\(\s*([\w.]+)\s*\)", can_import, condition)
    condition = re.sub(r"\btargetEnvironment\(\s*\w+\s*\)", "false", condition)
    return condition


DIRECTIVE = re.compile(r"^(\s*#(?:if|elseif)\s+)(.*)$")


def rewrite(text, platform):
    lines = []
    for line in text.split("\n"):
        match = DIRECTIVE.match(line)
        if match:
            line = match.group(1) + evaluate(match.group(2), platform)
        lines.append(line)
    return "\n".join(lines)


def swiftpm_args(target):
    """The swiftc arguments SwiftPM uses for `target`, from the debug build's manifest."""
    manifest = os.path.join(ROOT, ".build", "debug.yaml")
    if not os.path.exists(manifest):
        raise SystemExit("typecheck.py: .build/debug.yaml is missing: run `swift build` first")
    key = None
    with open(manifest) as file:
        for line in file:
            if line.startswith(f'  "C.{target}-') and line.rstrip().endswith('-debug.module":'):
                key = line
            elif key and line.startswith("    args: "):
                return json.loads(line[len("    args: "):])
    raise SystemExit(f"typecheck.py: no compile command for {target} in .build/debug.yaml")


def checked_args(args):
    """SwiftPM's arguments less the ones about outputs, sources and incremental builds."""
    drop_alone = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode",
                  "-serialize-diagnostics", "-enable-testing", "-parseable-output", "-emit-objc-header", "-g"}
    drop_with_value = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path"}
    kept = []
    skip = False
    for index, arg in enumerate(args[1:]):
        if skip:
            skip = False
            continue
        if arg in ("-Xcc", "-Xfrontend"):  # with the argument it passes on, whatever that is
            kept += [arg, args[index + 2]]
            skip = True
            continue
        if arg in drop_alone or arg.startswith("@") or re.fullmatch(r"-j\d+", arg):
            continue
        if arg in drop_with_value:
            skip = True
            continue
        kept.append(arg)
    return kept


def sources(target):
    folder = os.path.join(ROOT, "Sources", target)
    for directory, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


# Warnings that only the stand-ins cause, each for a reason that does not hold on Apple platforms:
STAND_IN_WARNINGS = [
    # URLSession and its kin come from the implicitly imported FoundationNetworking here, so a
    # file's `public import Foundation` looks unused; on Apple platforms they are Foundation's.
    re.compile(r"warning: public import of 'Foundation' was not used in public declarations"),
    # Core Foundation types are aliases of the Swift types they bridge to (see StandIns/Security.swift),
    # so a bridging cast the SDK needs is a no-op here.
    re.compile(r"warning: conditional downcast from 'CF\w+\??' \(aka '[^']*'\) to '\[CFString : Any\]' .* does nothing"),
    re.compile(r"warning: 'as' test is always true"),
]


def diagnostics(output):
    """The error and warning lines of `output`, less the warnings the stand-ins cause."""
    found = []
    for line in output.splitlines():
        if not re.search(r": (warning|error): ", line) or line.lstrip().startswith("|"):
            continue
        if ": warning: " in line and any(pattern.search(line) for pattern in STAND_IN_WARNINGS):
            continue
        found.append(line)
    return found


def run(command, label):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = result.stdout
    if result.returncode != 0 or diagnostics(output):
        print(output)
        raise SystemExit(f"typecheck.py: {label} failed")


def build_stand_ins(out, platform):
    """The stand-ins as `platform` has them: a declaration that exists on some Apple platforms
    only is inside `#if STANDIN_<platform> || …` in its file, so using it elsewhere fails here as
    it would with the real SDK."""
    os.makedirs(out)
    for module in STAND_IN_MODULES:
        run(["swiftc", "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", module,
             "-D", f"STANDIN_{platform}",
             "-I", out, "-o", os.path.join(out, module + ".swiftmodule")] + search_paths(swiftpm_args("Courier")) + [
             os.path.join(STAND_INS, module + ".swift")], f"stand-in {module}")


def search_paths(args):
    """The module search paths of SwiftPM's `args` (`-I`, and what it passes to Clang: the module
    maps and include paths of C targets), for code compiled against the package's modules: the
    stand-ins that re-export a dependency (CryptoKit is swift-crypto's `Crypto`), .ci/consumer.py."""
    kept = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-I", "-Xcc") and index + 1 < len(args):
            kept += [arg, args[index + 1]]
            index += 2
            continue
        if arg.startswith("-I") and len(arg) > 2:
            kept.append(arg)
        index += 1
    return kept


# Compile conditions the package sets only off Apple platforms by default (Package.swift's
# `asyncHTTPClientCondition`): the Linux build has them, an Apple build with default traits does not.
NON_APPLE_DEFINES = {"AsyncHTTPClientLinked"}


def without_defines(args, names):
    """`args` less `-D name` / `-Dname` for each of `names`."""
    kept = []
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "-D" and index + 1 < len(args) and args[index + 1] in names:
            skip = True
            continue
        if arg.startswith("-D") and arg[2:] in names:
            continue
        kept.append(arg)
    return kept


def check_availability():
    """Every `@available` of a stand-in is met by the package's minimums."""
    problems = []
    pattern = re.compile(r"@available\(([^)]*)\)")
    for module in STAND_IN_MODULES:
        path = os.path.join(STAND_INS, module + ".swift")
        with open(path) as file:
            for number, line in enumerate(file, 1):
                for match in pattern.finditer(line):
                    for part in match.group(1).split(","):
                        words = part.split()
                        if len(words) != 2 or words[0] not in MINIMUMS:
                            continue
                        version = tuple(int(x) for x in words[1].split("."))
                        if version > MINIMUMS[words[0]]:
                            problems.append(f"{path}:{number}: {words[0]} {words[1]} is above the minimum "
                                            f"{'.'.join(map(str, MINIMUMS[words[0]]))}: guard the use with "
                                            "#available or raise the package's minimum")
    if problems:
        print("\n".join(problems))
        raise SystemExit("typecheck.py: an Apple API Courier uses is newer than the package's minimums")
    print("availability: every stand-in declaration is available at macOS 13, iOS 16, tvOS 16, watchOS 9")


def check_platform(platform, stand_ins, work, targets, defines_kept=False):
    """Checks `targets` as `platform` compiles them: with default traits (no async-http-client), or,
    with `defines_kept`, with `AsyncHTTPClientOnApple` (async-http-client linked there too)."""
    copy_root = os.path.join(work, platform + ("-AsyncHTTPClientOnApple" if defines_kept else ""))
    modules = os.path.join(copy_root, "Modules")
    os.makedirs(modules, exist_ok=True)
    for target in targets:
        files = []
        for source in sources(target):
            relative = os.path.relpath(source, ROOT)
            destination = os.path.join(copy_root, relative)
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            with open(source) as file:
                text = rewrite(file.read(), platform)
            with open(destination, "w") as file:
                file.write(text)
            files.append(destination)
        args = checked_args(swiftpm_args(target))
        if not defines_kept:
            args = without_defines(args, NON_APPLE_DEFINES)
        base = ["swiftc", "-I", modules, "-I", stand_ins] + args + [
            "-Xfrontend", "-import-module", "-Xfrontend", "FoundationNetworking",
            "-Xfrontend", "-import-module", "-Xfrontend", "FoundationXML",
            "-Xfrontend", "-import-module", "-Xfrontend", "AppleFoundation",
        ]
        # `-emit-module`, not `-typecheck`: it also runs the SIL diagnostics (definite
        # initialization, region-based isolation's "sending … risks causing data races"), which
        # `-typecheck` skips.
        run(base + ["-emit-module", "-emit-module-path", os.path.join(modules, target + ".swiftmodule")] + files,
            f"{platform}: checking {target}")
    traits = "with AsyncHTTPClientOnApple" if defines_kept else "with default traits"
    print(f"{platform} ({traits}): {', '.join(targets)} compile with the Apple branches")


def main():
    platforms = sys.argv[1:] or PLATFORMS
    for platform in platforms:
        if platform not in PLATFORMS:
            raise SystemExit(f"typecheck.py: unknown platform {platform}; one of {', '.join(PLATFORMS)}")
    check_availability()
    work = tempfile.mkdtemp(prefix="courier-apple-")
    try:
        for number, platform in enumerate(platforms):
            stand_ins = os.path.join(work, platform, "StandIns")
            build_stand_ins(stand_ins, platform)
            # CourierTesting and CourierXML have no condition that tells Apple platforms apart:
            # checked once, with the first platform.
            check_platform(platform, stand_ins, work, TARGETS if number == 0 else PER_PLATFORM_TARGETS)
            if number == 0:
                # The AsyncHTTPClientOnApple trait's graph: Courier with async-http-client, once.
                check_platform(platform, stand_ins, work, ["Courier"], defines_kept=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
