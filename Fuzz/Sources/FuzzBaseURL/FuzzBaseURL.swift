import Foundation
import FuzzSupport

// `BaseURL(string:)`, `BaseURL(scheme:host:port:)`, `URLPath(_:)` and `URLPath(segments:)`.
//
// Invariants: never traps; a base URL that parses has a lower-case, valid host, a port in
// 1...65535, reads back from its description as itself, and its `url` has the same scheme, host
// and port; a path that validates starts with "/", has no "?", "#", "//" or dot segment and is
// kept byte for byte; a segment that is not empty and holds no dot segment (split at "/" and "\\",
// each piece cut at its first ";": not "../x", "..\\x", "..;x") builds a path that validates and
// percent-decodes back to it, and any other segment is refused.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzBaseURL_main` (see `runLibFuzzer`).
@_cdecl("FuzzBaseURL_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: fuzzBytes(start, count), as: UTF8.self)

    if let base = try? BaseURL(string: text) {
        check(base.host == base.host.lowercased(), "the host is not lower case")
        check(HostValidation.problem(with: base.host) == nil, "an invalid host was accepted")
        check(base.port.map { (1...65535).contains($0) } ?? true, "port \(base.port ?? 0)")
        check((try? BaseURL(string: base.description)) == base, "the description does not read back")
        check((try? BaseURL(scheme: base.scheme, host: base.host, port: base.port)) == base, "the parts do not rebuild it")
        let url = base.url
        check(url.scheme == base.scheme.rawValue, "url scheme \(url.scheme ?? "nil")")
        check(url.port == base.port, "url port")
        let brackets = CharacterSet(charactersIn: "[]")
        check(
            url.host.map { $0.lowercased().trimmingCharacters(in: brackets) == base.host.trimmingCharacters(in: brackets) } ?? false,
            "url host \(url.host ?? "nil") for \(base.host)")
    }

    if let path = try? URLPath(text) {
        check(path.rawValue == text, "the path was changed")
        // Bytes, not characters: "?" followed by a combining mark is still a "?".
        check(
            text.utf8.first == UInt8(ascii: "/") && !text.utf8.contains(UInt8(ascii: "?")) && !text.utf8.contains(UInt8(ascii: "#")),
            "a bad path was accepted")
        // No "//" before the last byte (the original `!text.dropLast().contains("//")`), on bytes.
        let bytes = Array(text.utf8.dropLast())
        check(!zip(bytes, bytes.dropFirst()).contains { $0 == UInt8(ascii: "/") && $1 == UInt8(ascii: "/") }, "an empty segment was accepted")
        for segment in text.split(separator: "/") {
            let decoded = PercentEncoding.decodeBytes(String(segment))
            check(decoded != nil && decoded != Array(".".utf8) && decoded != Array("..".utf8), "a dot segment was accepted")
        }
    }

    // The same text as one raw segment, and split at "/" into several.
    for segments in [[text], text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)] {
        let valid = segments.allSatisfy(isSoundSegment)
        guard let path = try? URLPath(segments: segments) else {
            check(!valid, "valid segments were refused")
            continue
        }
        check(valid, "an empty or dot segment was accepted")
        check(URLPath.problem(with: path.rawValue) == nil, "URLPath(segments:) built an invalid path")
        let decoded = path.rawValue.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            .map { PercentEncoding.decodeBytes(String($0)) }
        check(decoded == segments.map { Array($0.utf8) }, "a segment does not percent-decode back")
    }
    return 0
}

/// Whether `segment` is one `URLPath(segments:)` takes: not empty, and no piece of it (split at
/// "/" and "\\", each cut at its first ";") is "." or "..", since servers that decode "%2F" or
/// "%5C", or drop path parameters, would resolve it.
func isSoundSegment(_ segment: String) -> Bool {
    guard !segment.isEmpty else { return false }
    let pieces = segment.utf8.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
    return !pieces.contains { piece in
        let name = piece.prefix { $0 != UInt8(ascii: ";") }
        return name.elementsEqual(".".utf8) || name.elementsEqual("..".utf8)
    }
}
