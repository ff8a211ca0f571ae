#!/usr/bin/env python3
"""An Apple SDK for the compiler's availability checking, made on Linux from the toolchain.

Swift checks `@available` only for the platform it compiles for, so a Linux type-check passes a
call to an API newer than the package's deployment targets. This module makes, for one Apple
platform, what `swiftc -target x86_64-apple-macos13.0 -sdk …` needs to type-check Courier with
Apple's availability rules (`.ci/apple/README.md`):

- the standard library's modules (Swift, _Concurrency, _StringProcessing, Synchronization, …) from
  the toolchain's own `.swiftinterface` files, which carry Apple's `@available`;
- the C library: Linux's Glibc module built for the Apple target (glibc's headers, with the
  predefined macros an Apple target adds that glibc's headers collide with taken back);
- Dispatch and Foundation (FoundationEssentials, FoundationInternationalization, Foundation,
  FoundationNetworking, FoundationXML) and the packages Courier depends on, from
  `swift-synthesize-interface` of their Linux builds: declarations with their `@available`,
  compiled to modules for the Apple target.

A synthesized interface is not always valid Swift (a nested type added by an extension in another
module is not printed, a computed property is printed as if stored); `build` compiles it, repairs
what it can, and leaves out a declaration it cannot repair. A left-out declaration can only make
a use of it fail (`cannot find …`), never let an unavailable use pass; each is counted.

The SDK's modules are built with `-disable-availability-checking` and without function bodies:
the checks apply to Courier's code, not to the SDK's.
"""
import glob
import json
import os
import re
import shutil
import subprocess

TOOLCHAIN_LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("swiftc") or "/usr/bin/swiftc"))),
                             "lib", "swift")
LINUX_LIB = os.path.join(TOOLCHAIN_LIB, "linux")
LINUX_TRIPLE = "x86_64-unknown-linux-gnu"

# The Apple targets. x86_64 (simulators where a device would be arm64): glibc's x86_64 headers stand
# in for Darwin's, and availability does not depend on the architecture.
TRIPLES = {
    "macOS": "x86_64-apple-macos{}",
    "iOS": "x86_64-apple-ios{}-simulator",
    "tvOS": "x86_64-apple-tvos{}-simulator",
    "watchOS": "x86_64-apple-watchos{}-simulator",
    "visionOS": "x86_64-apple-xros{}-simulator",
}

SDK_NAMES = {"macOS": "macosx26.0", "iOS": "iphonesimulator26.0", "tvOS": "appletvsimulator26.0",
             "watchOS": "watchsimulator26.0", "visionOS": "xrsimulator26.0"}

# Standard-library modules, from the toolchain's interfaces.
TOOLCHAIN_INTERFACES = ["Swift", "_Concurrency", "_StringProcessing", "_RegexParser", "Synchronization", "SwiftOnoneSupport",
                        "Glibc", "_Volatile", "Distributed", "Observation", "RegexBuilder", "_Builtin_float", "Testing",
                        "_Testing_Foundation", "_TestDiscovery", "_TestingInterop"]
# Modules without an interface in the toolchain, synthesized from their Linux builds, in dependency order.
TOOLCHAIN_SYNTHESIZED = ["Dispatch", "FoundationEssentials", "FoundationInternationalization", "Foundation",
                         "FoundationNetworking", "FoundationXML"]
# What the Linux builds of those re-export (a synthesized interface does not say), with Darwin for
# Glibc, as Apple's Foundation: the Darwin stand-in (typecheck.py gives `from_source` its builder),
# so that Glibc's names are visible only where Darwin.swift says Darwin has them.
TOOLCHAIN_REEXPORTS = {
    "Foundation": ["FoundationEssentials", "FoundationInternationalization", "Dispatch", "Darwin"],
    "FoundationInternationalization": ["FoundationEssentials"],
}
# Declarations `swift-synthesize-interface` prints without their definition.
SYNTHESIS_PATCHES = {
    "Foundation": [
        (re.compile(r"^public typealias NSRange$", re.M),
         "public struct NSRange : Swift.Hashable, Swift.Sendable {\n    public var location: Swift.Int\n"
         "    public var length: Swift.Int\n    public init(location: Swift.Int, length: Swift.Int)\n}"),
        # What `_BridgedStoredNSError`, an underscored protocol the synthesizer does not print,
        # gives URLError (as on Apple platforms: Error, Hashable, CustomNSError, `code`, `userInfo`).
        (re.compile(r"^public struct URLError : Swift\.Sendable \{$", re.M),
         "public struct URLError : Swift.Sendable, Swift.Hashable, Foundation.CustomNSError {\n"
         "    public init(_ code: Foundation.URLError.Code, userInfo: [Swift.String : Any] = [:])\n"
         "    public var code: Foundation.URLError.Code { get }\n"
         "    public var userInfo: [Swift.String : Any] { get }\n"
         "    public static func == (lhs: Foundation.URLError, rhs: Foundation.URLError) -> Swift.Bool\n"
         "    public func hash(into hasher: inout Swift.Hasher)"),
    ],
}
# Underscored functions the compiler calls for `error as NSError` and back.
ERROR_BRIDGING = """
public func _convertErrorToNSError(_ error: any Swift.Error) -> Foundation.NSError
public func _convertNSErrorToError(_ error: Foundation.NSError?) -> any Swift.Error
"""

# `as` bridging between Swift's and Foundation's types (`kSecClass as String`, `query as
# CFDictionary`): conformances to the underscored `_ObjectiveCBridgeable`, which the synthesizer
# does not print. Appended to Foundation's interface.
BRIDGES = [("Swift.String", "Foundation.NSString", ""), ("FoundationEssentials.Data", "Foundation.NSData", ""),
           ("FoundationEssentials.URL", "Foundation.NSURL", ""), ("FoundationEssentials.Date", "Foundation.NSDate", ""),
           ("Swift.Array", "Foundation.NSArray", ""), ("Swift.Dictionary", "Foundation.NSDictionary", ""),
           ("Swift.Set", "Foundation.NSSet", "")] + [
          (f"Swift.{name}", "Foundation.NSNumber", "") for name in
          ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Bool", "Double", "Float"]]
BRIDGING = "".join(f"""
extension {swift_type} : Swift._ObjectiveCBridgeable {{
    public typealias _ObjectiveCType = {objc_type}
    public func _bridgeToObjectiveC() -> {objc_type}
    public static func _forceBridgeFromObjectiveC(_ source: {objc_type}, result: inout {swift_type}?)
    public static func _conditionallyBridgeFromObjectiveC(_ source: {objc_type}, result: inout {swift_type}?) -> Swift.Bool
    public static func _unconditionallyBridgeFromObjectiveC(_ source: {objc_type}?) -> {swift_type}
}}
""" for swift_type, objc_type, _ in BRIDGES)

# CDispatch, the C module under Linux's Dispatch overlay, has __APPLE__ branches that need Darwin's
# headers; the overlay's interface names only these of it.
CDISPATCH = """\
import Glibc
public typealias dispatch_time_t = Swift.UInt64
public typealias dispatch_fd_t = Swift.Int32
public typealias off_t = Glibc.off_t
public typealias mode_t = Glibc.mode_t
public typealias timespec = Glibc.timespec
"""

# Clang predefines these nullability spellings for Apple targets; glibc's <sys/cdefs.h> defines
# `__nonnull(params)` unless `__nonnull` is already defined. This header is found before glibc's.
CDEFS_WRAPPER = """\
#ifndef COURIER_APPLE_SDK_CDEFS
#define COURIER_APPLE_SDK_CDEFS
#undef __nonnull
#undef __nullable
#undef __null_unspecified
#endif
#include_next <sys/cdefs.h>
"""

RAW_VALUE_ENUM = re.compile(r"^( *)(?:@[\w()., ]+ )*public enum \w+ : (Swift\.(?:String|U?Int(?:8|16|32|64)?|Character|Double|Float))\b[^{\n]*\{$", re.M)
ERROR = re.compile(r"^(/[^:]+):(\d+):(\d+): error: (.*)$")
DECLARATION = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|open|internal|package|private|fileprivate|final|static|class|override|"
    r"mutating|nonmutating|convenience|required|indirect|nonisolated|dynamic|optional|lazy|weak|unowned|consuming|"
    r"borrowing|__consuming|distributed|prefix|postfix|infix)\s+)*"
    r"(?:func|var|let|init|deinit|subscript|struct|class|enum|protocol|actor|extension|typealias|associatedtype|case|"
    r"operator|precedencegroup|macro)\b")


def interface_file_name(triple):
    """`x86_64-apple-ios16.0-simulator` -> `x86_64-apple-ios-simulator.swiftinterface`: the name
    the compiler looks for in a `.swiftmodule` folder."""
    parts = triple.split("-")
    parts[2] = re.sub(r"[\d.]+$", "", parts[2])
    return "-".join(parts) + ".swiftinterface"


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class AppleSDK:
    """The SDK of one platform at one deployment target, made under `root`."""

    def __init__(self, root, platform, minimum):
        self.root = root
        self.platform = platform
        self.triple = TRIPLES[platform].format(".".join(map(str, minimum)))
        self.sdk = os.path.join(root, "sdk")
        self.modules = os.path.join(root, "Modules")  # modules built here, explicitly
        self.cache = os.path.join(root, "ModuleCache")  # modules the compiler builds from the SDK's interfaces
        self.libc = os.path.join(root, "libc")
        self.left_out = {}  # module -> declarations left out of its synthesized interface
        self.reexports = dict(TOOLCHAIN_REEXPORTS)
        # module -> a function that builds it into `modules` from its sources (for what checked
        # code uses beyond a public interface: `@_spi`, `package`).
        self.from_source = {}
        self.features = " ".join(re.findall(r"-enable-experimental-feature \w+", self.toolchain_interface("Swift").split("\n")[2]))

    # Flags for every compile against this SDK.
    def flags(self):
        # Clang searches no subfolder for module maps with an Apple SDK: the shims' folder is named.
        # Objective-C interop is off, as in the modules: with it, SILGen looks for pointer
        # conversions a Linux standard library does not have ("broken standard library").
        return ["-Xfrontend", "-disable-objc-interop", "-target", self.triple, "-sdk", self.sdk, "-module-cache-path", self.cache, "-I", self.modules,
                "-I", os.path.join(TOOLCHAIN_LIB, "shims"), "-I", self.libc, "-I", "/usr/include", "-I", f"/usr/include/{LINUX_TRIPLE.replace('-unknown', '')}"]

    def toolchain_interface(self, module):
        with open(os.path.join(LINUX_LIB, module + ".swiftmodule", LINUX_TRIPLE + ".swiftinterface")) as file:
            return file.read()

    def make(self, package_modules, package_flags, package_sources):
        """Prepares the SDK: the C library and the toolchain's interfaces. Modules of the package's
        Linux build (`package_modules`, its Modules folder, with `package_flags`: the Clang module
        maps of its C targets) are synthesized when first asked for (`ensure`); `package_sources` (its checkouts and Sources) tell what each re-exports."""
        os.makedirs(self.modules, exist_ok=True)
        os.makedirs(self.sdk, exist_ok=True)
        with open(os.path.join(self.sdk, "SDKSettings.json"), "w") as file:
            # What the driver and Clang read of it: a version, the newest deployment target, and
            # the Mac Catalyst version map (required, though unused here).
            json.dump({"CanonicalName": SDK_NAMES[self.platform], "Version": "26.0", "MaximumDeploymentTarget": "26.99",
                       "VersionMap": {"macOS_iOSMac": {"13.0": "16.0"}, "iOSMac_macOS": {"16.0": "13.0"},
                                      # visionOS inherits iOS's availability through this map: an iOS
                                      # version below 17 maps to visionOS 1.0.
                                      "iOS_xrOS": {"17.0": "1.0", "17.4": "1.1", "18.0": "2.0", "18.4": "2.4",
                                                   "26.0": "26.0"}}}, file)
        self.package_modules = package_modules
        self.package_flags = list(package_flags)
        self.package_sources = package_sources
        self.make_libc()
        for module in TOOLCHAIN_INTERFACES:
            if os.path.exists(os.path.join(LINUX_LIB, module + ".swiftmodule", LINUX_TRIPLE + ".swiftinterface")):
                self.write_interface(module, self.toolchain_interface(module))
        self.build_module("CDispatch", self.header("CDispatch") + CDISPATCH)

    def can_make(self, module):
        """Whether `ensure(module)` knows where `module` comes from."""
        return (self.has(module) or module in TOOLCHAIN_SYNTHESIZED or module in self.from_source
                or os.path.exists(os.path.join(self.package_modules, module + ".swiftmodule")))

    def ensure(self, module):
        """Builds `module` for the SDK unless it is there: from the toolchain's Linux build, or the
        package's, with the modules its interface names first."""
        if self.has(module):
            return
        if module in self.from_source:
            self.from_source[module](self)
            return
        if not self.can_make(module):
            raise SystemExit(f"sdk.py: {self.platform}: no module {module} in the toolchain or the package's build")
        search_paths = [] if module in TOOLCHAIN_SYNTHESIZED else ["-I", self.package_modules] + self.package_flags
        text = self.synthesize(module, search_paths)
        self.build_module(module, text + self.missing_conformances(module, text, search_paths))

    def make_libc(self):
        """Glibc's module map and umbrella header, for an Apple target: `<tgmath.h>` left out (it
        refuses the Apple targets' floating-point types) and the nullability macros undone."""
        os.makedirs(os.path.join(self.libc, "sys"), exist_ok=True)
        arch_lib = os.path.join(LINUX_LIB, "x86_64")
        with open(os.path.join(arch_lib, "glibc.modulemap")) as file:
            module_map = file.read()
        # The map names some headers relative to the folder it was installed in.
        module_map = module_map.replace('textual header "assert.h"', 'textual header "/usr/include/assert.h"')
        module_map = module_map.replace('header "uuid/uuid.h"', 'header "/usr/include/uuid/uuid.h"')
        with open(os.path.join(self.libc, "module.modulemap"), "w") as file:
            file.write(module_map)
        with open(os.path.join(arch_lib, "SwiftGlibc.h")) as file:
            umbrella = file.read()
        umbrella = umbrella.replace("#if __has_include(<tgmath.h>)\n#include <tgmath.h>\n#endif", "")
        with open(os.path.join(self.libc, "SwiftGlibc.h"), "w") as file:
            file.write(umbrella)
        with open(os.path.join(self.libc, "sys", "cdefs.h"), "w") as file:
            file.write(CDEFS_WRAPPER)

    def header(self, module):
        return ("// swift-interface-format-version: 1.0\n"
                f"// swift-module-flags: -target {self.triple} -disable-objc-interop -enable-library-evolution -swift-version 5 "
                f"-module-name {module} {self.features}\n")

    def write_interface(self, module, text):
        """`text` as an interface of the SDK, compiled by the compiler when imported."""
        text = self.for_target(text)
        folder = os.path.join(self.sdk, "usr", "lib", "swift", module + ".swiftmodule")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, interface_file_name(self.triple))
        with open(path, "w") as file:
            file.write(text)
        return path

    def for_target(self, text):
        """An interface's text for the Apple target: its `-target`, the SDK's build flags, and no
        `@backDeployed` (Linux's interfaces print those functions without the body the attribute
        needs; it changes where the code runs, not the declaration's availability)."""
        text = re.sub(r"-target \S+", "-target " + self.triple, text, count=1)
        text = re.sub(r"^(// swift-module-flags: .*)$",
                      r"\1 -disable-availability-checking -experimental-skip-all-function-bodies", text, count=1, flags=re.M)
        return re.sub(r"^ *@backDeployed\(before:[^)]*\)\n", "", text, flags=re.M)

    def synthesize(self, module, search_paths):
        """`module`'s Linux build printed as an interface for the Apple target."""
        result = subprocess.run(["swift-synthesize-interface", "-module-name", module, "-target", LINUX_TRIPLE,
                                 "-print-fully-qualified-types"] + search_paths, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise SystemExit(f"sdk.py: swift-synthesize-interface {module} failed:\n{result.stderr}")
        # Documentation comments only cost time here (and name modules in prose).
        text = re.sub(r"^\s*///.*\n", "", result.stdout, flags=re.M)
        for pattern, replacement in SYNTHESIS_PATCHES.get(module, []):
            text = pattern.sub(replacement, text)
        if module == "Foundation":
            text += BRIDGING + ERROR_BRIDGING
        # It qualifies the standard library's other modules' names with `Swift.`.
        text = re.sub(r"\bSwift\.(\w+)\b", lambda m: f"{self.moved[m.group(1)]}.{m.group(1)}" if m.group(1) in self.moved else m.group(0), text)
        # Attributes that require a body it does not print.
        text = re.sub(r"@(inlinable|_alwaysEmitIntoClient|_transparent) ", "", text)
        # An enum with raw values: the members its RawRepresentable conformance needs (an interface
        # lists them; the synthesized one neither lists them nor gives the raw values).
        text = RAW_VALUE_ENUM.sub(lambda m: m.group(0) + f"\n{m.group(1)}    public typealias RawValue = {m.group(2)}"
                                  f"\n{m.group(1)}    public init?(rawValue: {m.group(2)})"
                                  f"\n{m.group(1)}    public var rawValue: {m.group(2)} {{ get }}", text)
        # A platform named twice in one `@available` (Linux builds add their own): the first counts.
        text = re.sub(r"@available\(([^)]*)\)", lambda m: "@available(" + first_per_platform(m.group(1)) + ")", text)
        # Imports: each module it names that the SDK can make (made first); what the Linux build
        # re-exports, re-exported.
        # (Its own import lines name implementation details too: a Linux build's C modules.)
        imports = set(re.findall(r"(?<![\w.])([A-Za-z_]\w*)\.", text))
        text = re.sub(r"^import \w+\n", "", text, flags=re.M)
        # (A source's re-export inside `#if canImport(CryptoKit)` is Apple's own; kept when the SDK can make it.)
        exported = [name for name in self.reexports.get(module) or self.source_reexports(module)
                    if name != module and self.can_make(name)]
        for name in sorted((imports | set(exported)) - {module}):
            if self.can_make(name):
                self.ensure(name)
        lines = [f"@_exported import {name}" for name in exported]
        lines += [f"import {name}" for name in sorted(imports) if name not in exported and name != module and self.has(name)]
        return self.header(module) + "import _Concurrency\nimport _StringProcessing\n" + "\n".join(lines) + "\n" + text

    def missing_conformances(self, module, text, search_paths):
        """Extensions declaring the conformances `module`'s types have and its synthesized interface
        does not print: one that comes through a protocol the interface does not show (an internal
        or underscored protocol refining a public one: swift-crypto's SHA256 is a HashFunction
        that way). Read from `swift-api-digester -dump-sdk`; only non-generic types (a generic
        type's conformance may be conditional). A conformance the interface cannot keep is left out
        like any other declaration."""
        dump = os.path.join(self.root, f"{module}.api.json")
        result = run(["swift-api-digester", "-dump-sdk", "-module", module, "-o", dump, "-target", LINUX_TRIPLE]
                     + search_paths)
        if result.returncode != 0:
            raise SystemExit(f"sdk.py: swift-api-digester {module} failed:\n{result.stdout[-2000:]}")
        with open(dump) as file:
            root = json.load(file)["ABIRoot"]
        pairs = []

        def walk(node):
            # (A class's are mostly its superclass's, printed there.)
            if (node.get("kind") == "TypeDecl" and node.get("declKind") in ("Struct", "Enum")
                    and "genericSig" not in node and node.get("moduleName") == module):
                for conformance in node.get("conformances", []):
                    if conformance.get("name") not in IMPLIED_PROTOCOLS:
                        pairs.append((node["mangledName"], conformance["mangledName"]))
            for child in node.get("children", []):
                walk(child)

        walk(root)
        names = sorted({name for pair in pairs for name in pair})
        demangled = subprocess.run(["swift-demangle", "-compact"], input="\n".join(names), stdout=subprocess.PIPE,
                                   text=True, check=True).stdout.split("\n")
        readable = dict(zip(names, demangled))
        declared = declared_conformances(text)
        lines = []
        for type_name, protocol_name in pairs:
            type_name, protocol_name = readable[type_name], readable[protocol_name]
            if "(" in type_name or "_" in "".join(part[:1] for part in (type_name + "." + protocol_name).split(".")):
                continue  # an underscored type or protocol, or one declared in an extension's context
            if protocol_name.split(".")[-1] in declared.get(type_name.split(".")[-1], ()):
                continue
            protocol_name = re.sub(r"^Swift\.(\w+)$", lambda m: f"{self.moved.get(m.group(1), 'Swift')}.{m.group(1)}", protocol_name)
            lines.append(f"extension {type_name} : {protocol_name} {{}}")
        return "\n" + "\n".join(lines) + "\n"

    def source_reexports(self, module):
        """The modules `module`'s sources re-export (`@_exported import X`), from the package's
        checkouts (a synthesized interface does not say): read once, per `Sources/<module>` folder."""
        if not hasattr(self, "_reexports_by_folder"):
            self._reexports_by_folder = {}
            for root in self.package_sources:
                for sources in glob.glob(os.path.join(root, "**", "Sources", "*"), recursive=True):
                    found = self._reexports_by_folder.setdefault(os.path.basename(sources), set())
                    for path in glob.glob(os.path.join(sources, "**", "*.swift"), recursive=True):
                        with open(path, errors="replace") as file:
                            found.update(re.findall(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*@_exported\s+(?:public\s+)?import\s+(\w+)\s*$", file.read(), re.M))
        return sorted(self._reexports_by_folder.get(module, ()))

    @property
    def moved(self):
        if not hasattr(self, "_moved"):
            self._moved = {}
            swift = set(top_level_names(self.toolchain_interface("Swift")))
            for module in ["_Concurrency", "_StringProcessing", "Synchronization"]:
                for name in top_level_names(self.toolchain_interface(module)):
                    if name not in swift:
                        self._moved.setdefault(name, module)
        return self._moved

    def has(self, module):
        return (os.path.exists(os.path.join(self.modules, module + ".swiftmodule"))
                or os.path.exists(os.path.join(self.sdk, "usr", "lib", "swift", module + ".swiftmodule")))

    def log(self, module):
        """Where the declarations left out of `module` are listed."""
        return open(os.path.join(self.root, f"left-out-{module}.txt"), "a")

    def build_module(self, module, text, attempts=60):
        """Compiles the interface `text` to Modules/<module>.swiftmodule, repairing or leaving out
        what does not compile."""
        path = self.write_interface(module, text)
        output = os.path.join(self.modules, module + ".swiftmodule")
        left_out = 0
        for _ in range(attempts):
            result = run(["swiftc", "-frontend", "-compile-module-from-interface", path, "-module-name", module,
                          "-o", output] + [flag for flag in self.flags() if flag != "-Xfrontend"])
            if result.returncode == 0:
                self.left_out[module] = left_out
                return
            errors = [m for m in map(ERROR.match, result.stdout.splitlines())
                      if m and m.group(1) == path and not m.group(4).startswith("failed to build")]
            if not errors:
                raise SystemExit(f"sdk.py: {self.platform}: building {module} failed:\n{result.stdout[-4000:]}")
            with open(path) as file:
                lines = file.read().split("\n")
            left_out += repair(lines, [(int(m.group(2)) - 1, m.group(4)) for m in errors], self.log(module))
            with open(path, "w") as file:
                file.write("\n".join(lines))
        raise SystemExit(f"sdk.py: {self.platform}: {module} still does not compile after {attempts} repairs")


# Conformances every type has, or that the compiler works out: never declared.
IMPLIED_PROTOCOLS = {"Copyable", "Escapable", "SendableMetatype", "BitwiseCopyable"}


def declared_conformances(text):
    """Type name (its last component) -> the protocols (last components) a declaration or extension
    of it lists in `text`."""
    declared = {}
    for match in re.finditer(r"\b(?:struct|class|enum|actor|extension)\s+([\w.]+)(?:<[^>{]*>)?\s*:\s*([^{]*)\{", text):
        names = re.findall(r"([\w.]+)(?=\s*(?:,|where|$))", match.group(2).split(" where ")[0])
        protocols = {name.split(".")[-1] for name in names}
        if "Codable" in protocols:
            protocols |= {"Decodable", "Encodable"}
        declared.setdefault(match.group(1).split(".")[-1], set()).update(protocols)
    return declared


def top_level_names(text):
    """The names of the top-level types and functions an interface declares."""
    return re.findall(r"^(?:[@\w][\w@()., ]* )?(?:struct|class|enum|protocol|actor|typealias|func) (\w+)", text, re.M)


def first_per_platform(arguments):
    """An `@available` argument list with a platform named again left out."""
    seen, kept = set(), []
    for part in arguments.split(","):
        words = part.split()
        if len(words) == 2 and re.fullmatch(r"[\d.]+", words[1]):
            if words[0] in seen:
                continue
            seen.add(words[0])
        kept.append(part)
    return ",".join(kept)


def repair(lines, errors, log):
    """Repairs `lines` in place for `errors` ((line index, message)); returns how many
    declarations it left out."""
    left_out = 0
    cleared = set()
    for index, message in errors:
        if index in cleared:
            continue
        line = lines[index]
        if "does not override" in message and "override " in line:
            lines[index] = line.replace("override ", "", 1)
        elif ("expected '{' in subscript" in message or "extensions must not contain stored properties" in message
              or "cannot override with a stored property" in message):
            lines[index] = line + " { get set }"  # printed without its accessors
        elif "class stored properties not supported" in message:
            lines[index] = line + " { get }"
        elif "modifier cannot be applied to read-only properties" in message:
            lines[index] = re.sub(r"\b(internal|private|fileprivate)\(set\) ", "", line)
        elif "'let' declarations cannot be computed properties" in message:
            lines[index] = line.replace(" let ", " var ", 1)
        else:
            first, last = extent(lines, index)
            log.write(f"{message}\n" + "\n".join(lines[first:last + 1]) + "\n\n")
            for number in range(first, last + 1):
                lines[number] = ""
                cleared.add(number)
            left_out += 1
    return left_out


def extent(lines, index):
    """The first and last line of the declaration that line `index` belongs to, with its
    attributes and documentation."""
    if re.match(r"\s*(@_exported )?import ", lines[index]):
        return index, index
    first = index
    while first > 0 and not DECLARATION.match(lines[first]) and not lines[first - 1].startswith(("import ", "@_exported ", "// swift-")):
        first -= 1
    while first > 0 and lines[first - 1].lstrip().startswith(("@", "///")):
        first -= 1
    depth, opened = 0, False
    for number in range(first, len(lines)):
        code = "" if lines[number].lstrip().startswith("//") else lines[number]
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if number >= index and depth <= 0:
            return first, number
    return first, index
