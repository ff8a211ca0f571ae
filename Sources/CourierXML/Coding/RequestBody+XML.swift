public import Courier
import Foundation
public import XMLCoder

extension RequestBody {
    /// Any `Encodable` value as an XML document, encoded with XMLCoder's `XMLEncoder` and sent as `application/xml; charset=utf-8`.
    ///
    /// ```swift
    /// var body: RequestBody? { .xml(NewOrder(sku: "A-1", quantity: 2), rootKey: "order") }
    /// // <?xml version="1.0" encoding="UTF-8"?>
    /// // <order><sku>A-1</sku><quantity>2</quantity></order>
    /// ```
    /// The value is encoded once per send and checked to be well-formed XML: a key that is not an
    /// XML name, a character XML cannot carry, or a bare top-level value fails the call with
    /// `InvalidRequest/encodingFailed(_:underlyingError:)` rather than sending a broken document.
    /// - Parameters:
    ///   - value: a struct, class, dictionary or array.
    ///   - rootKey: the root element's name; by default the type's name (`NewOrder`).
    ///   - encoder: makes the `XMLEncoder` to use, called once per encoding. By default one that
    ///     writes CR (and, in attributes, tab and LF) as character references, so they arrive as sent.
    ///   - header: the XML declaration; `nil` sends none. Its `encoding` must be `UTF-8` (or `nil`).
    public static func xml(
        _ value: some Encodable & Sendable, rootKey: String? = nil,
        encoder: (@Sendable () -> XMLEncoder)? = nil,
        header: XMLHeader? = XMLHeader(version: 1.0, encoding: "UTF-8")
    ) -> RequestBody {
        // Examples of refused input: a key `"first name"`, a character `"\u{1}"`, a bare `String` or
        // `Date` (XMLCoder cannot put it at the top level). A new XMLEncoder per encoding because it is
        // a mutable class, so Courier never shares one between requests. The bytes are always
        // UTF-8, hence the header's encoding.
        .custom(contentType: "application/xml; charset=utf-8") {
            try XMLCoding.encode(value, rootKey: rootKey, encoder: encoder?() ?? XMLCoding.defaultEncoder(), header: header)
        }
    }
}

/// XMLCoder with Courier's safety checks.
enum XMLCoding {
    /// An `XMLEncoder` whose escapes also keep CR in text, and tab, LF and CR in attributes (which
    /// parsers otherwise normalize away).
    static func defaultEncoder() -> XMLEncoder {
        let encoder = XMLEncoder()
        encoder.charactersEscapedInElements += [("\r", "&#13;")]
        encoder.charactersEscapedInAttributes += [("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#9;")]
        return encoder
    }

    /// Encodes `value` and checks that the result is well-formed XML.
    /// - Throws: `EncodingError.invalidValue` for a single-value top level, a non-UTF-8 header, or
    ///   output that does not parse.
    static func encode<Value: Encodable>(
        _ value: Value, rootKey: String?, encoder: XMLEncoder,
        header: XMLHeader?
    ) throws -> Data {
        try TopLevelProbe.check(value)
        if let encoding = header?.encoding, encoding.lowercased() != "utf-8" {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "the XML header declares \(encoding), but the body is UTF-8"))
        }
        let data = try encoder.encode(value, withRootKey: rootKey, header: header)
        do {
            // The app's own values: no limits (XMLCoder has already recursed through them).
            _ = try XMLTreeParser.parse(data, charset: "utf-8", buildsTree: false, limits: .unlimited)
        } catch {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "XMLCoder wrote XML that is not well-formed: \(error)", underlyingError: error))
        }
        return data
    }
}
