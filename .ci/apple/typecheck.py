#!/usr/bin/env python3
"""Compiles Courier's Apple-only code on Linux, for the Apple targets, with Apple's availability.

No Apple SDK can run here, so for each Apple platform this script:
  1. makes an SDK for the Apple target at the package's minimum (sdk.py: the standard library
     from the toolchain's interfaces, Glibc, Foundation and the dependencies synthesized from their
     Linux builds) and builds the stand-ins of .ci/apple/StandIns/ (Darwin, os, Combine, Network,
     Security, AuthenticationServices, …: only the declarations Courier uses, each file says where
     they come from) for it;
  2. copies the sources of the library targets with every `#if`/`#elseif` condition evaluated
     as that platform would (`os(Linux)` false, `os(iOS)` true on iOS, `canImport(Glibc)` false,
     `canImport(Darwin)` true, ...), so the Apple branches are the ones compiled;
  3. compiles each target with `-target x86_64-apple-…` in Swift 6 mode with the flags SwiftPM
     uses for it (read from .build/debug.yaml, so a `swift build` must have run), with Foundation's
     networking and XML parts imported implicitly (on Apple platforms they are part of Foundation);
  4. checks, from the AST, the uses the compiler cannot judge: corelibs-foundation declarations
     against corelibs_availability.py, Glibc names against what Darwin.swift says Darwin shares;
  5. breaks the build on purpose (the probes) and fails unless each break is reported.

What it proves: the Apple branches parse, name only declarations that exist, use none above the
deployment targets outside a matching `#available`/`@available` (the compiler's own check),
convert Core Foundation types only where the SDK lets them, handle the frameworks' non-frozen
enums, use no Glibc name that Darwin lacks, and pass strict concurrency checking and the SIL
diagnostics with the package's settings. The guides' code is compiled the same way, once. What it
cannot prove is listed in .ci/apple/README.md.

  python3 .ci/apple/typecheck.py                  # every platform, two at a time
  python3 .ci/apple/typecheck.py macOS tvOS        # some
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corelibs_availability  # noqa: E402
import sdk  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAND_INS = os.path.join(ROOT, ".ci", "apple", "StandIns")
PLATFORMS = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]
# The package's minimums (Package.swift `platforms:`); visionOS has no minimum there, so its first.
MINIMUMS = {"macOS": (13, 0), "iOS": (16, 0), "tvOS": (16, 0), "watchOS": (9, 0), "visionOS": (1, 0)}
# Targets to check, in dependency order.
TARGETS = ["Courier", "CourierConnectivity", "CourierOAuth", "CourierWebSockets", "CourierTesting", "CourierXML", "CourierEndpoints", "CourierOpenAPI"]
# The guides' code (.ci/guides.py's CourierGuideTests), compiled as a macOS app compiles it: its
# Combine block and its web-authentication presenter block are Apple-only.
GUIDES_TARGET = "CourierGuideTests"
# The package's own targets the guides import besides the libraries (the OpenAPI guide's generated
# client uses `package` declarations, which an interface does not carry): compiled from source too.
GUIDES_DEPENDENCIES = ["CourierDemoAPI"]
GUIDES_PLATFORM = "macOS"
# Targets whose conditions tell Apple platforms apart: checked on every platform; the rest once.
PER_PLATFORM_TARGETS = ["Courier", "CourierConnectivity", "CourierOAuth"]
# Stand-in modules, in dependency order; each is StandIns/<name>.swift.
STAND_IN_MODULES = ["DarwinShapes", "Darwin", "os", "Combine", "Network", "Security", "AuthenticationServices", "AppleFoundation",
                    "CommonCrypto", "CryptoKit"]
# Modules that exist on every Apple platform; the rest of a canImport is decided below.
# Testing: Swift Testing ships with the toolchain (Xcode 16 and later); the host's module stands in.
APPLE_MODULES = {"Darwin", "os", "Combine", "Network", "Security", "AuthenticationServices", "Dispatch",
                 "Foundation", "ObjectiveC", "CryptoKit", "CommonCrypto", "Testing"}
# Apple's modules that neither the SDK made here nor a stand-in provides: imported only where
# `canImport` says an Apple platform has them (decided by `rewrite`).
APPLE_ONLY_MODULES = {"ObjectiveC", "UIKit", "AppKit", "SwiftUI", "WatchKit"}
NOT_ON_APPLE = {"Glibc", "Musl", "Android", "WinSDK", "FoundationNetworking", "FoundationXML",
                "FoundationEssentials"}
DEPENDENCY_MODULES = {"HTTPTypes", "HTTPTypesFoundation", "Logging", "Tracing", "CoreMetrics", "Crypto",
                      "_CryptoExtras", "AsyncHTTPClient", "NIOCore", "NIOHTTP1", "NIOPosix", "NIOSSL",
                      "XMLCoder", "Instrumentation", "ServiceContextModule", "Courier", "CourierTesting",
                      "CourierOAuth", "CourierConnectivity", "CourierXML", "CourierEndpoints", "OpenAPIRuntime",
                      "CourierOpenAPI", "CourierWebSockets"}


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
    """`text` as `platform` compiles it: its `#if` conditions decided (the SDK made here has
    modules an Apple platform lacks, FoundationEssentials and Glibc among them, so `canImport`
    is decided here, not by the compiler)."""
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
    # The Linux target, its module search paths, its C targets' module maps and its module cache:
    # the Apple SDK (.ci/apple/sdk.py) provides each module for the Apple target instead.
    drop_with_value = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path", "-target",
                       "-I", "-module-cache-path", "-Xcc"}
    kept = []
    skip = False
    for index, arg in enumerate(args[1:]):
        if skip:
            skip = False
            continue
        if arg == "-Xfrontend":  # with the argument it passes on, whatever that is
            kept += [arg, args[index + 2]]
            skip = True
            continue
        if arg in drop_alone or arg.startswith("@") or re.fullmatch(r"-j\d+", arg) or arg == "-fPIC":
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


IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)", re.M)


def ensure_imports(apple_sdk, texts, own_modules):
    """Makes the SDK modules `texts` import, less `own_modules` (Courier's targets, the stand-ins).
    An import the SDK cannot make (Musl, in a branch no Apple platform takes) is left to the
    compiler, which fails on it if an Apple branch does import it."""
    for text in texts:
        for name in IMPORT.findall(text):
            if name not in own_modules and apple_sdk.can_make(name):
                apple_sdk.ensure(name)


def build_stand_in(module, out, platform, apple_sdk):
    """The stand-in `module` as `platform` has it, compiled for the Apple target into `out`: a
    declaration that exists on some Apple platforms only is inside `#if STANDIN_<platform> || …`
    in its file, so using it elsewhere fails here as it would with the real SDK, and their
    `@available` is enforced as the SDK's is."""
    os.makedirs(out, exist_ok=True)
    source = os.path.join(out, module + ".swift")
    with open(os.path.join(STAND_INS, module + ".swift")) as file:
        text = rewrite(file.read(), platform)
    with open(source, "w") as file:
        file.write(text)
    ensure_imports(apple_sdk, [text], set(STAND_IN_MODULES))
    for name in IMPORT.findall(text):  # another stand-in it imports, built first
        if name in STAND_IN_MODULES and not os.path.exists(os.path.join(out, name + ".swiftmodule")):
            build_stand_in(name, out, platform, apple_sdk)
    # -enable-library-evolution: Apple's frameworks are resilient, so their enums are not
    # frozen (a `switch` needs `@unknown default`) unless declared `@frozen`.
    run(["swiftc", "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", module,
         "-enable-library-evolution", "-D", f"STANDIN_{platform}", "-I", out] + apple_sdk.flags() + [
         "-o", os.path.join(out, module + ".swiftmodule"), source], f"stand-in {module}", allowed=STAND_IN_BUILD_WARNINGS)


def build_stand_ins(out, platform, apple_sdk):
    """Every stand-in not built yet (the SDK builds Darwin's into its modules: its Foundation
    re-exports it)."""
    for module in STAND_IN_MODULES:
        if not apple_sdk.has(module) and not os.path.exists(os.path.join(out, module + ".swiftmodule")):
            build_stand_in(module, out, platform, apple_sdk)


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


CORELIBS_REFERENCE = re.compile(r'decl="((?:Foundation|FoundationNetworking|FoundationXML|Dispatch)\.\(file\)\.[^"@\[]*?)\s*(?:\[with|@|")')


def corelibs_key(reference):
    """`FoundationNetworking.(file).URLSession extension.AuthChallengeDisposition.useCredential` ->
    `FoundationNetworking.URLSession.AuthChallengeDisposition.useCredential`."""
    return reference.replace(".(file)", "").replace(" extension", "")


def corelibs_problems(dump, platform):
    """Error lines for the dumped code's uses of corelibs-foundation (Foundation's NS classes,
    FoundationNetworking, FoundationXML) and Dispatch declarations whose Apple availability
    corelibs_availability.py does not record, or records above `platform`'s minimum: their Linux
    interfaces carry no Apple availability for the compiler to enforce."""
    problems = {}
    for match in CORELIBS_REFERENCE.finditer(dump):
        key = corelibs_key(match.group(1))
        if key in problems:
            continue
        introduced = corelibs_availability.APPLE.get(key)
        if introduced is None:
            problems[key] = "its Apple availability is not recorded in .ci/apple/corelibs_availability.py: add it from Apple's SDK"
            continue
        # visionOS has what iOS has; visionOS 1.0 is iOS 17's SDK.
        version, minimum = ((introduced[1], (17, 0)) if platform == "visionOS"
                            else (introduced[PLATFORMS.index(platform)], MINIMUMS[platform]))
        if version == "unavailable":
            problems[key] = f"is unavailable on {platform} in Apple's SDK"
        elif version > minimum:
            version = ".".join(map(str, version))
            problems[key] = (f"is only available in {platform} {version} or newer, above the package's minimum (corelibs' "
                             "interface cannot tell the compiler, so no `#available` guard can be checked: raise the minimum)")
    return [f"error: {platform}: '{key}' {problem}" for key, problem in sorted(problems.items())]


def glibc_problems(dump):
    """Error lines for the dumped code's references to Glibc declarations that Darwin might not
    have: a name StandIns/Darwin.swift neither declares nor says Darwin shares, or a field of a
    shared struct its `// fields` line does not name. (A name Darwin.swift declares itself shadows
    Glibc's, so a reference to it never names Glibc.)"""
    names, fields = darwin_shares_with_glibc()
    unknown = {}
    for line in dump.splitlines():
        for name, member in GLIBC_REFERENCE.findall(line):
            if name in names and (not member or member == "init" or name not in fields or member in fields[name]):
                continue
            where = SOURCE_RANGE.search(line)
            unknown.setdefault(f"{name}.{member}" if member else name, f"{where.group(1)}:{where.group(2)}" if where else "?")
    return [f"{where}: error: '{name}' is Glibc's here, and StandIns/Darwin.swift does not say Darwin has it: "
            "declare or re-export it there as the SDK header has it (Darwin may lack it)" for name, where in sorted(unknown.items())]


def dump_problems(command, platform, label):
    """What the corelibs and Glibc checks find in the AST of the code `command` compiles (which
    compiled cleanly just before, so the dump is all it prints)."""
    result = subprocess.run(command + ["-dump-ast"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        print(result.stdout[-4000:])
        raise SystemExit(f"typecheck.py: {label}: swiftc -dump-ast failed")
    return corelibs_problems(result.stdout, platform) + glibc_problems(result.stdout)


def package_modules():
    """The package's Linux build's module folder and its C targets' module maps (what
    `swift-synthesize-interface` needs to read the dependencies' modules)."""
    args = swiftpm_args("Courier")
    folder = args[args.index("-I") + 1]
    clang = []
    for index, arg in enumerate(args):
        if arg == "-Xcc" and index + 1 < len(args):
            clang += [arg, args[index + 1]]
    return folder, clang


# Dependencies the checked code uses beyond their public interface, built from their sources
# (with SwiftPM's flags, the compiler deciding their `#if`s) instead of synthesized: the OpenAPI
# guide's generated client uses OpenAPIRuntime's `@_spi(Generated)` declarations.
FROM_SOURCE = ["OpenAPIRuntime"]


def build_from_source(target):
    def build(apple_sdk):
        # A copy, built as on Linux where it reaches the C library: `canImport(CoreFoundation)` and
        # `canImport(Darwin)` false (CoreFoundation's C headers need Darwin's, and the Darwin here is
        # the stand-in, with only what Courier uses): its public declarations are the same.
        files, texts = [], []
        for path in sources(target):
            with open(path) as file:
                text = re.sub(r"\bcanImport\(\s*(?:CoreFoundation|Darwin)\s*\)", "false", file.read())
            copy = os.path.join(apple_sdk.root, "sources", target, os.path.relpath(path, ROOT))
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            with open(copy, "w") as file:
                file.write(text)
            files.append(copy)
            texts.append(text)
        ensure_imports(apple_sdk, texts, {target})
        # Its own code is not what is checked: availability is not enforced inside it, but its
        # declarations keep their `@available`.
        run(["swiftc"] + apple_sdk.flags() + checked_args(swiftpm_args(target)) + [
            "-Xfrontend", "-disable-availability-checking", "-suppress-warnings",
            "-emit-module", "-emit-module-path", os.path.join(apple_sdk.modules, target + ".swiftmodule")] + files,
            f"{apple_sdk.platform}: building {target} from its sources")
    return build


def make_sdk(work, platform):
    apple_sdk = sdk.AppleSDK(os.path.join(work, platform, "SDK"), platform, MINIMUMS[platform])
    folder, clang = package_modules()
    apple_sdk.from_source = {target: build_from_source(target) for target in FROM_SOURCE}
    # The SDK's Foundation re-exports the Darwin stand-in (and what it re-exports), as Apple's does.
    for module in ("Darwin", "DarwinShapes"):
        apple_sdk.from_source[module] = lambda sdk_, module=module: build_stand_in(module, sdk_.modules, platform, sdk_)
    apple_sdk.make(folder, clang, [os.path.join(ROOT, ".build", "checkouts"), ROOT])
    for module in ("Foundation", "FoundationNetworking", "FoundationXML"):  # every checked file imports them
        apple_sdk.ensure(module)
    return apple_sdk


IMPLICIT_IMPORTS = [
    # On Apple platforms Foundation includes its networking and XML parts; AppleFoundation is the
    # stand-in for what corelibs lacks.
    "-Xfrontend", "-import-module", "-Xfrontend", "FoundationNetworking",
    "-Xfrontend", "-import-module", "-Xfrontend", "FoundationXML",
    "-Xfrontend", "-import-module", "-Xfrontend", "AppleFoundation",
]


def copy_sources(target, platform, copy_root):
    """`target`'s sources as `platform` compiles them, under `copy_root`; their paths."""
    files = []
    for source in sources(target):
        destination = os.path.join(copy_root, os.path.relpath(source, ROOT))
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        with open(source) as file:
            text = rewrite(file.read(), platform)
        with open(destination, "w") as file:
            file.write(text)
        files.append(destination)
    return files


def compile_command(target, platform, apple_sdk, stand_ins, modules, defines_kept):
    """The compiler command for `target` on `platform` (sources to be added)."""
    args = checked_args(swiftpm_args(target))
    if not defines_kept:
        args = without_defines(args, NON_APPLE_DEFINES)
    # With async-http-client, Courier imports a C target of its (CNIOExtrasZlib): the package's
    # module maps, for Clang to build for the Apple target from glibc's headers like Glibc.
    c_targets = package_modules()[1] if defines_kept else []
    # `-wmo`: one frontend job, which type-checks every body and runs the SIL diagnostics in a
    # fifth of the time the driver's per-file jobs take.
    return ["swiftc", "-wmo", "-I", modules, "-I", stand_ins] + apple_sdk.flags() + c_targets + args + IMPLICIT_IMPORTS


def check_platform(platform, apple_sdk, stand_ins, work, targets, defines_kept=False):
    """Checks `targets` as `platform` compiles them, for the Apple target against `apple_sdk`: with
    default traits (no async-http-client), or, with `defines_kept`, with `AsyncHTTPClientOnApple`
    (async-http-client linked there too)."""
    copy_root = os.path.join(work, platform + ("-AsyncHTTPClientOnApple" if defines_kept else ""))
    modules = os.path.join(copy_root, "Modules")
    os.makedirs(modules, exist_ok=True)
    own = set(TARGETS) | {GUIDES_TARGET} | set(GUIDES_DEPENDENCIES) | set(STAND_IN_MODULES) | APPLE_ONLY_MODULES
    for target in targets:
        files = copy_sources(target, platform, copy_root)
        texts = []
        for path in files:
            with open(path) as file:
                texts.append(file.read())
        ensure_imports(apple_sdk, texts, own)
        base = compile_command(target, platform, apple_sdk, stand_ins, modules, defines_kept)
        # `-emit-module`, not `-typecheck`: it also runs the SIL diagnostics (definite
        # initialization, region-based isolation's "sending … risks causing data races"), which
        # `-typecheck` skips. Not for the guides' tests, which nothing imports: Swift Testing's
        # `@Test` expands, for a Mach-O target, to a `@section` record whose accessor closure this
        # toolchain's constant evaluation refuses off Apple's own ("'@const' value should be
        # initialized with a compile-time value"); the guides run with the SIL checks on Linux.
        action = ["-typecheck"] if target == GUIDES_TARGET else [
            "-emit-module", "-emit-module-path", os.path.join(modules, target + ".swiftmodule")]
        run(base + action + files, f"{platform}: checking {target}")
        problems = dump_problems(base + files, platform, f"{platform}: {target}")
        if problems:
            print("\n".join(problems))
            raise SystemExit(f"typecheck.py: {platform}: {target} names what Apple platforms may lack")
    traits = "with AsyncHTTPClientOnApple" if defines_kept else "with default traits"
    print(f"{platform} ({traits}): {', '.join(targets)} compile for {apple_sdk.triple} with the Apple branches")


# The check checked (issue 48): code every Apple build compiles (appended to a Courier source),
# each with the diagnostic it must draw; `None`: must compile (a guarded use). `{v}` is the
# platform's version of macOS 15 (iOS 18, …), `{p}` its name.
APPLE_15 = {"macOS": "15.0", "iOS": "18.0", "tvOS": "18.0", "watchOS": "11.0", "visionOS": "2.0"}
APPLE_26 = {"macOS": "26.0", "iOS": "26.0", "tvOS": "26.0", "watchOS": "26.0", "visionOS": "26.0"}
PROBE_FILE = "Sources/Courier/Support/HTTPDate.swift"
COMPILER_PROBES = [
    ("String(validating:as:)", "func probeValidating(_ b: [UInt8]) -> String? { String(validating: b[...], as: UTF8.self) }",
     r"'init\(validating:as:\)' is only available in {p} {v} or newer"),
    ("InlineArray", "func probeInlineArray() -> Int { let a: InlineArray<2, Int> = [1, 2]; return a[0] }",
     r"'InlineArray' is only available in {p} {v26} or newer"),
    ("Duration.attoseconds", "func probeAttoseconds(_ d: Duration) -> String { \"\\(d.attoseconds)\" }",
     r"'attoseconds' is only available in {p} {v} or newer"),
    ("Calendar.RecurrenceRule (FoundationEssentials)",
     "func probeRecurrence() -> Any { Calendar.RecurrenceRule.daily(calendar: .current) }",
     r"'RecurrenceRule' is only available in {p} {v} or newer"),
    ("typed-throws function type metadata",
     "func probeTypedThrows() -> Any { let f: () throws(CourierError) -> Void = {}; return f }",
     r"runtime support for typed throws function types is only available in {p} {v} or newer"),
    ("a Glibc-only name", "func probeGlibcName() -> Any { MSG_NOSIGNAL }", r"cannot find 'MSG_NOSIGNAL' in scope"),
    ("a Glibc-only field", "func probeGlibcField() -> Any { stat().st_mtim }", r"value of type 'stat' has no member 'st_mtim'"),
    ("a guarded use", "func probeGuarded(_ b: [UInt8]) -> String? {\n"
     "    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { return String(validating: b, as: UTF8.self) }\n"
     "    return nil\n}", None),
]
# Probes of the checks on the AST dump, in a module that imports Courier.
DUMP_PROBES = [
    ("a corelibs API whose Apple availability is not recorded", "func probeCorelibs() { URLSession.shared.invalidateAndCancel() }",
     r"'FoundationNetworking\.URLSession\.invalidateAndCancel\(\)' its Apple availability is not recorded"),
    ("a field only Glibc's struct has, of a struct Darwin.swift re-exports", "func probeGlibcField() -> Any { dirent().d_off }",
     r"'dirent\.d_off' is Glibc's here"),
]


def version_pattern(version):
    """A pattern for `version` ("15.0") however many `.0`s follow its major number."""
    major = version.split(".")[0]
    return re.escape(major) + r"(?:\.0)*" if version == major + ".0" else re.escape(version) + r"(?:\.0)*"


def run_probes(platform, apple_sdk, stand_ins, work, everything):
    """Breaks an Apple build on purpose and fails unless the check says so, naming the API and the
    platform: every probe on the first platform, `String(validating:as:)` and the guarded use on
    the others."""
    probes = COMPILER_PROBES if everything else [COMPILER_PROBES[0], COMPILER_PROBES[-1]]
    copy_root = os.path.join(work, platform + "-probes")
    files = copy_sources("Courier", platform, copy_root)
    probe_path = os.path.join(copy_root, PROBE_FILE)
    with open(probe_path) as file:
        first_line = file.read().count("\n") + 2
    with open(probe_path, "a") as file:
        file.write("\n" + "\n".join(code for _, code, _ in probes) + "\n")
    command = compile_command("Courier", platform, apple_sdk, stand_ins, os.path.join(copy_root, "Modules"), False)
    os.makedirs(os.path.join(copy_root, "Modules"), exist_ok=True)
    result = subprocess.run(command + ["-emit-module", "-emit-module-path", os.path.join(copy_root, "Modules", "Courier.swiftmodule")]
                            + files, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    failures = []
    line = first_line
    for name, code, expected in probes:
        lines = range(line, line + code.count("\n") + 1)
        line += code.count("\n") + 1
        found = [m.group(2) for m in re.finditer(r"^[^\n]*HTTPDate\.swift:(\d+):\d+: error: (.*)$", result.stdout, re.M)
                 if int(m.group(1)) in lines]
        if expected is None:
            if found:
                failures.append(f"{name}: drew {found[0]!r}; a guarded use must compile")
            continue
        # The compiler writes a version as it was declared: "15", "15.0" or "15.0.0".
        pattern = expected.format(p=platform, v=version_pattern(APPLE_15[platform]), v26=version_pattern(APPLE_26[platform]))
        if not any(re.search(pattern, message) for message in found):
            failures.append(f"{name}: expected /{pattern}/, the compiler said {found or 'nothing'}")
        else:
            print(f"{platform}: probe {name}: {next(m for m in found if re.search(pattern, m))}")
    if everything:
        source = os.path.join(copy_root, "Probe.swift")
        with open(source, "w") as file:
            file.write("import Courier\nimport Foundation\n" + "\n".join(code for _, code, _ in DUMP_PROBES) + "\n")
        probe_command = ["swiftc", "-wmo", "-module-name", "CourierProbe", "-parse-as-library", "-swift-version", "6",
                         "-I", os.path.join(work, platform, "Modules"), "-I", stand_ins] + apple_sdk.flags() + IMPLICIT_IMPORTS
        problems = dump_problems(probe_command + [source], platform, f"{platform}: the dump probes")
        for name, _, expected in DUMP_PROBES:
            match = next((problem for problem in problems if re.search(expected, problem)), None)
            if match:
                print(f"{platform}: probe {name}: {match.split('error: ', 1)[1]}")
            else:
                failures.append(f"{name}: expected /{expected}/, the dump checks said {problems or 'nothing'}")
    if failures:
        print("\n".join(f"error: {platform}: the check missed a probe: {failure}" for failure in failures))
        raise SystemExit(f"typecheck.py: {platform}: the availability check let a probe through")


def check(platform, first, work):
    """Checks one platform; the `first` checked also gets the targets no condition tells apart
    between Apple platforms, and the AsyncHTTPClientOnApple trait's build."""
    apple_sdk = make_sdk(work, platform)
    stand_ins = os.path.join(work, platform, "StandIns")
    build_stand_ins(stand_ins, platform, apple_sdk)
    targets = TARGETS if first else PER_PLATFORM_TARGETS
    if not first and platform == GUIDES_PLATFORM:
        targets = targets + ["CourierWebSockets", "CourierTesting", "CourierXML", "CourierEndpoints"]  # the guides import them
    if platform == GUIDES_PLATFORM:
        targets = targets + GUIDES_DEPENDENCIES + [GUIDES_TARGET]
    check_platform(platform, apple_sdk, stand_ins, work, targets)
    # The AsyncHTTPClientOnApple trait: on the first platform, and on watchOS, where the transport
    # is marked unavailable (TN3135) and Courier must compile around it.
    if first or platform == "watchOS":
        check_platform(platform, apple_sdk, stand_ins, work, ["Courier"], defines_kept=True)
    if not os.environ.get("COURIER_APPLE_NO_PROBES"):
        run_probes(platform, apple_sdk, stand_ins, work, first)
    left_out = sum(apple_sdk.left_out.values())
    print(f"{platform}: {len(apple_sdk.left_out)} modules synthesized for {apple_sdk.triple}; {left_out} declarations "
          "they could not express were left out (COURIER_APPLE_KEEP=1 keeps the lists: SDK/left-out-*.txt)")


def main():
    arguments = sys.argv[1:]
    if arguments[:1] == ["--one"]:  # a worker: one platform, in the folder it is given
        platform, first, work = arguments[1], arguments[2] == "first", arguments[3]
        check(platform, first, work)
        return
    platforms = arguments or PLATFORMS
    for platform in platforms:
        if platform not in PLATFORMS:
            raise SystemExit(f"typecheck.py: unknown platform {platform}; one of {', '.join(PLATFORMS)}")
    work = tempfile.mkdtemp(prefix="courier-apple-")
    # Two platforms at a time, each in a process of its own (the compiles are single-threaded);
    # their output is printed in order once each ends.
    jobs = []
    failed = []
    try:
        pending = list(enumerate(platforms))
        running = []
        while pending or running:
            while pending and len(running) < 2:
                number, platform = pending.pop(0)
                log = open(os.path.join(work, platform + ".log"), "w+")
                process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--one", platform,
                                            "first" if number == 0 else "other", work], stdout=log, stderr=subprocess.STDOUT)
                running.append((platform, process, log))
                jobs.append((platform, process, log))
            platform, process, log = running[0]
            process.wait()
            running.pop(0)
        for platform, process, log in jobs:
            log.seek(0)
            sys.stdout.write(log.read())
            log.close()
            if process.returncode != 0:
                failed.append(platform)
        if failed:
            raise SystemExit(f"typecheck.py: {', '.join(failed)} failed")
    finally:
        if os.environ.get("COURIER_APPLE_KEEP"):
            print(f"typecheck.py: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
