public import Courier
import Foundation
public import XMLCoder

extension RequestBody {
    /// Any `Encodable` value as an XML document, encoded with XMLCoder's `XMLEncoder` and sent as
    /// `application/xml; charset=utf-8`.
    ///
    /// ```swift
    /// struct NewOrder: Encodable, Sendable { var sku: String; var quantity: Int }
    ///
    /// var body: RequestBody? { .xml(NewOrder(sku: "A-1", quantity: 2), rootKey: "order") }
    /// // <?xml version="1.0" encoding="UTF-8"?>
    /// // <order><sku>A-1</sku><quantity>2</quantity></order>
    /// ```
    /// The value is encoded when the request is built, once per send. The result is checked to be
    /// well-formed XML before it is sent: a key that is not an XML name (`"first name"`) or a
    /// character XML cannot carry (`"\u{1}"`) fails the call with
    /// `InvalidRequest/encodingFailed(_:underlyingError:)` rather than sending a broken document, and so does a
    /// value XMLCoder cannot put at the top level (a bare `String` or `Date`).
    ///
    /// - Parameters:
    ///   - value: a struct, class, dictionary or array.
    ///   - rootKey: the root element's name; by default the type's name (`NewOrder`).
    ///   - encoder: makes the `XMLEncoder` to use, called once per encoding (an `XMLEncoder` is a
    ///     mutable class, so Courier never shares one between requests). By default one that also
    ///     writes CR (and, in attributes, tab and LF) as character references, so they arrive as sent.
    ///     ```swift
    ///     .xml(order, encoder: {
    ///         let encoder = XMLEncoder()
    ///         encoder.outputFormatting = .prettyPrinted
    ///         encoder.dateEncodingStrategy = .iso8601
    ///         return encoder
    ///     })
    ///     ```
    ///   - header: the XML declaration; `nil` sends none. Its `encoding` must be `UTF-8` (or `nil`):
    ///     the bytes are UTF-8.
    public static func xml(
        _ value: some Encodable & Sendable, rootKey: String? = nil,
        encoder: (@Sendable () -> XMLEncoder)? = nil,
        header: XMLHeader? = XMLHeader(version: 1.0, encoding: "UTF-8")
    ) -> RequestBody {
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

    /// An `XMLDecoder` with XMLCoder's defaults.
    static func defaultDecoder() -> XMLDecoder {
        XMLDecoder()
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
