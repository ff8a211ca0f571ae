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
copy of the SDK or in Foundation), convert Core Foundation types only where the SDK lets them
(the stand-ins' CF types are Foundation classes, distinct from Swift's types, as on Darwin),
handle the frameworks' non-frozen enums (the stand-ins are built with library evolution), use
no Glibc name that Darwin lacks (`check_glibc_references`), respect a `@available(<platform>,
unavailable)` on the platform it names, and pass strict concurrency checking with the package's
settings. The guides' code is compiled the same way, once (CourierGuideTests: the Combine block,
the web-authentication presenter block). What it cannot prove: that corelibs Foundation declares a type as Apple's does, or
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
TARGETS = ["Courier", "CourierConnectivity", "CourierOAuth", "CourierTesting", "CourierXML", "CourierEndpoints", "CourierOpenAPI"]
# The guides' code (.ci/guides.py's CourierGuideTests), compiled as a macOS app compiles it: its
# Combine block and its web-authentication presenter block are Apple-only.
GUIDES_TARGET = "CourierGuideTests"
GUIDES_PLATFORM = "macOS"
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
                      "CourierOAuth", "CourierConnectivity", "CourierXML", "CourierEndpoints", "OpenAPIRuntime",
                      "CourierOpenAPI"}


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
    """`text` as `platform` compiles it: its `#if` conditions decided, and `@available(<platform>,
    unavailable…)` made `@available(*, unavailable…)`, so that a use of a declaration the platform
    lacks fails here as it does there (off Apple platforms Swift checks no Apple availability)."""
    unavailable = re.compile(r"@available\(\s*" + platform + r"\s*,\s*unavailable\b")
    lines = []
    for line in text.split("\n"):
        match = DIRECTIVE.match(line)
        if match:
            line = match.group(1) + evaluate(match.group(2), platform)
        line = unavailable.sub("@available(*, unavailable", line)
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
    """The target's source files, as SwiftPM lists them (test targets and derived sources, such as
    a resource bundle accessor, included)."""
    for arg in swiftpm_args(target):
        if arg.startswith("@") and arg.endswith("/sources"):
            with open(arg[1:]) as file:
                return [line.strip() for line in file if line.strip()]
    raise SystemExit(f"typecheck.py: no source list for {target} in .build/debug.yaml")


# Warnings that the check's setup causes, not the code: one, for a reason that does not hold on
# Apple platforms. A warning a stand-in causes is fixed in the stand-in, never listed here.
SETUP_WARNINGS = [
    # URLSession and its kin come from the implicitly imported FoundationNetworking here, so a
    # file's `public import Foundation` looks unused; on Apple platforms they are Foundation's.
    re.compile(r"warning: public import of 'Foundation' was not used in public declarations"),
]

# Building the stand-ins with -enable-library-evolution (Apple's frameworks are resilient) warns
# that the Swift modules they import were built without it (the toolchain's Foundation and
# Dispatch, and swift-crypto's Crypto, which the CryptoKit stand-in re-exports); that is Linux's
# build of those modules, not a stand-in's declaration, and it concerns binary compatibility only.
STAND_IN_BUILD_WARNINGS = [
    re.compile(r"warning: module '(Foundation|Dispatch|FoundationEssentials|FoundationNetworking|Crypto)' was not "
               r"compiled with library evolution support"),
]


def diagnostics(output, allowed):
    """The error and warning lines of `output`, less the warnings `allowed` matches."""
    found = []
    for line in output.splitlines():
        if not re.search(r": (warning|error): ", line) or line.lstrip().startswith("|"):
            continue
        if ": warning: " in line and any(pattern.search(line) for pattern in allowed):
            continue
        found.append(line)
    return found


def run(command, label, allowed=SETUP_WARNINGS):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = result.stdout
    if result.returncode != 0 or diagnostics(output, allowed):
        print(output)
        raise SystemExit(f"typecheck.py: {label} failed")
    return output


def build_stand_ins(out, platform):
    """The stand-ins as `platform` has them: a declaration that exists on some Apple platforms
    only is inside `#if STANDIN_<platform> || …` in its file, so using it elsewhere fails here as
    it would with the real SDK."""
    os.makedirs(out)
    for module in STAND_IN_MODULES:
        source = os.path.join(out, module + ".swift")
        with open(os.path.join(STAND_INS, module + ".swift")) as file:
            text = rewrite(file.read(), platform)
        with open(source, "w") as file:
            file.write(text)
        # -enable-library-evolution: Apple's frameworks are resilient, so their enums are not
        # frozen (a `switch` needs `@unknown default`) unless declared `@frozen`.
        run(["swiftc", "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", module,
             "-enable-library-evolution", "-D", f"STANDIN_{platform}",
             "-I", out, "-o", os.path.join(out, module + ".swiftmodule")] + search_paths(swiftpm_args("Courier")) + [
             source], f"stand-in {module}", allowed=STAND_IN_BUILD_WARNINGS)


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


def darwin_shares_with_glibc():
    """What StandIns/Darwin.swift says Darwin shares with Glibc: the names it re-exports by a
    scoped import (`@_exported import func Glibc.close`) or names on a `// shared:` line, and, per
    struct, the fields named on its `// fields <struct>:` line."""
    names, fields = set(), {}
    with open(os.path.join(STAND_INS, "Darwin.swift")) as file:
        for line in file:
            match = re.match(r"@_exported import \w+ Glibc\.(\w+)", line)
            if match:
                names.add(match.group(1))
                continue
            match = re.match(r"// shared: (.*)", line)
            if match:
                names.update(match.group(1).split())
                continue
            match = re.match(r"// fields (\w+): ?(.*)", line)
            if match:
                fields.setdefault(match.group(1), set()).update(match.group(2).split())
    return names, fields


GLIBC_REFERENCE = re.compile(r'decl="(?:SwiftGlibc|Glibc)\.\(file\)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?')
SOURCE_RANGE = re.compile(r'range=\[([^\]:]+):(\d+):')


def check_glibc_references(command, label):
    """Fails when the code `command` compiles refers to a Glibc declaration that Darwin might not
    have: a name StandIns/Darwin.swift neither declares nor says Darwin shares, or a field of a
    shared struct its `// fields` line does not name. (A name Darwin.swift declares itself shadows
    Glibc's, so a reference to it never names Glibc.)"""
    names, fields = darwin_shares_with_glibc()
    # The dump goes to stderr when the driver runs one job per file; the code compiled cleanly
    # just before, so nothing else is printed.
    result = subprocess.run(command + ["-dump-ast"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise SystemExit(f"typecheck.py: {label}: swiftc -dump-ast failed")
    unknown = {}
    for line in result.stdout.splitlines():
        for name, member in GLIBC_REFERENCE.findall(line):
            if name in names and (not member or member == "init" or name not in fields or member in fields[name]):
                continue
            where = SOURCE_RANGE.search(line)
            unknown.setdefault(f"{name}.{member}" if member else name, f"{where.group(1)}:{where.group(2)}" if where else "?")
    if unknown:
        for name, where in sorted(unknown.items()):
            print(f"{where}: error: '{name}' is Glibc's here, and StandIns/Darwin.swift does not say Darwin has it: "
                  "declare or re-export it there as the SDK header has it (Darwin may lack it)")
        raise SystemExit(f"typecheck.py: {label} failed")


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
        check_glibc_references(base + files, f"{platform}: Glibc names in {target}")
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
            # CourierTesting, CourierXML and CourierEndpoints have no condition that tells Apple
            # platforms apart: checked once, with the first platform.
            targets = TARGETS if number == 0 else PER_PLATFORM_TARGETS
            if number != 0 and platform == GUIDES_PLATFORM:
                targets = targets + ["CourierTesting", "CourierXML", "CourierEndpoints"]  # the guides import them
            if platform == GUIDES_PLATFORM:
                targets = targets + [GUIDES_TARGET]
            check_platform(platform, stand_ins, work, targets)
            if number == 0:
                # The AsyncHTTPClientOnApple trait's graph: Courier with async-http-client, once.
                check_platform(platform, stand_ins, work, ["Courier"], defines_kept=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
