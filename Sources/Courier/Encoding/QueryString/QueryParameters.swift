public import Foundation

/// A nested query value: a string, a number, a bool, `null`, an array or a dictionary.
///
/// Write one with literals; the formatting is decided by ``QueryStringFormattingOptions``. A NaN
/// or infinite ``double(_:)`` cannot be sent and fails the call with
/// ``InvalidRequest/encodingFailed(_:underlyingError:)``; an empty array or dictionary writes
/// nothing at all.
///
/// ```swift
/// let parameters: QueryParameters = ["include": ["fuzzy", "not mean"], "limit": 20, "exact": true, "cursor": nil]
/// // cursor&exact=true&include%5B0%5D=fuzzy&include%5B1%5D=not%20mean&limit=20
/// ```
public enum QueryValue: Sendable, Equatable {
    // How each case is written: .string as it is (percent-encoded); .integer in decimal: `1234`;
    // .double as Swift's shortest round-trip description: `1.234`, `3.0`, `1e-07`; .decimal by its
    // `description`: `12.50` is `12.5`; .bool as `true` or `false`; .null as a bare name with no
    // `=`: `flag`; .array and .dictionary per the options' arrayFormat and dictionaryFormat,
    // dictionary keys in sorted order, array elements in their order.

    /// Text: `.string("a b")` → `a%20b`.
    case string(String)
    /// A whole number: `.integer(1234)` → `1234`.
    case integer(Int64)
    /// A binary floating-point number: `.double(1.234)` → `1.234`. Must be finite.
    case double(Double)
    /// A decimal number, written by its `description`: `.decimal(Decimal(string: "0.1")!)` → `0.1`.
    /// Must not be NaN.
    case decimal(Decimal)
    /// A boolean: `.bool(true)` → `true`.
    case bool(Bool)
    /// No value: the bare name, `flag`.
    case null
    /// An ordered list: `.array(["a", "b"])` → `foo%5B0%5D=a&foo%5B1%5D=b` by default.
    case array([QueryValue])
    /// Named values, written in sorted key order: `.dictionary(["b": 1])` → `foo%5Bb%5D=1` by default.
    case dictionary([String: QueryValue])
}

extension QueryValue: ExpressibleByStringLiteral {
    /// `"text"` is ``string(_:)``.
    ///
    /// ```swift
    /// let value: QueryValue = "swift"
    /// ```
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension QueryValue: ExpressibleByIntegerLiteral {
    /// `42` is ``integer(_:)``.
    ///
    /// ```swift
    /// let value: QueryValue = 42
    /// ```
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

extension QueryValue: ExpressibleByFloatLiteral {
    /// `1.5` is ``double(_:)``.
    ///
    /// ```swift
    /// let value: QueryValue = 1.5
    /// ```
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension QueryValue: ExpressibleByBooleanLiteral {
    /// `true` is ``bool(_:)``.
    ///
    /// ```swift
    /// let value: QueryValue = true
    /// ```
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension QueryValue: ExpressibleByNilLiteral {
    /// `nil` is ``null``: a bare name.
    ///
    /// ```swift
    /// let value: QueryValue = nil
    /// ```
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension QueryValue: ExpressibleByArrayLiteral {
    /// `[a, b]` is ``array(_:)``.
    ///
    /// ```swift
    /// let value: QueryValue = ["a", 1, true]
    /// ```
    public init(arrayLiteral elements: QueryValue...) {
        self = .array(elements)
    }
}

extension QueryValue: ExpressibleByDictionaryLiteral {
    /// `["key": value]` is ``dictionary(_:)``. A key written twice keeps its last value.
    ///
    /// ```swift
    /// let value: QueryValue = ["min": 1, "max": 10]
    /// ```
    public init(dictionaryLiteral elements: (String, QueryValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// The named, possibly nested parameters of a query string or a form body.
///
/// Names are written in sorted order, so the same parameters always give the same URL. Write
/// them with a dictionary literal, or encode any `Encodable` whose top level is keyed:
///
/// ```swift
/// var queryParameters: QueryParameters? { ["q": "cats", "page": ["size": 20, "after": "x1"]] }
/// // ?page%5Bafter%5D=x1&page%5Bsize%5D=20&q=cats
/// struct Filter: Encodable { var tags: [String]; var since: Date? }
/// let parameters = try QueryParameters(encoding: Filter(tags: ["a", "b"], since: nil))
/// // tags%5B0%5D=a&tags%5B1%5D=b
/// ```
public struct QueryParameters: Sendable, Equatable {
    /// The parameters by name.
    public var values: [String: QueryValue]

    /// Whether there are no parameters.
    ///
    /// ```swift
    /// QueryParameters([:]).isEmpty  // true
    /// ```
    package var isEmpty: Bool { values.isEmpty }

    /// Parameters from a dictionary.
    ///
    /// ```swift
    /// let parameters = QueryParameters(["ids": [1, 2, 3]])
    /// ```
    public init(_ values: [String: QueryValue]) {
        self.values = values
    }

    /// Parameters from any `Encodable` (a struct, a `[String: …]` dictionary) whose top level is
    /// keyed; nested containers become nested parameters. A `Date` becomes an ISO 8601 string in
    /// UTC with whole seconds, `Data` a Base64 string, and an absent optional writes nothing.
    ///
    /// ```swift
    /// struct Query: Encodable { var term: String; var ids: [Int]; var cursor: String? }
    /// let parameters = try QueryParameters(encoding: Query(term: "a b", ids: [4, 2], cursor: nil))
    /// // ids%5B0%5D=4&ids%5B1%5D=2&term=a%20b
    /// ```
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/encodingFailed(_:underlyingError:)``
    ///   when the value throws while encoding, encodes a NaN or infinite number, or its top level
    ///   is not keyed (an array or a single value). The message names the coding path, never the
    ///   value.
    public init(encoding value: some Encodable) throws(CourierError) {
        // What the value encodes becomes: `String` .string; signed and unsigned integers .integer (a
        // `UInt64` beyond `Int64.max` becomes .decimal); `Double` .double; `Float` its own shortest
        // description (`Float(1.1)` is `1.1`, not `1.100000023841858`); `Decimal` .decimal; `Bool`
        // .bool; `Date` an ISO 8601 string in UTC with whole seconds (`2024-05-01T12:00:00Z`); `URL` its
        // `absoluteString`; `Data` its Base64 string; an explicit `encodeNil` .null (a bare name). An
        // optional that is absent (`encodeIfPresent`, as synthesized `Encodable` does for `nil`) writes
        // nothing.
        let encoded: QueryValue
        do {
            encoded = try QueryValueEncoder.encode(value)
        } catch let error as EncodingError {
            throw .invalidRequest(.encodingFailed(RequestBody.describe(error), underlyingError: error))
        } catch {
            throw .invalidRequest(
                .encodingFailed(
                    "\(type(of: value)) threw \(String(describing: type(of: error))) while encoding query parameters",
                    underlyingError: error))
        }
        switch encoded {
        case .dictionary(let values):
            self.values = values
        case .array:
            throw .invalidRequest(
                .encodingFailed(
                    "query parameters need a keyed top level, but \(type(of: value)) encodes an array"
                ))
        default:
            throw .invalidRequest(
                .encodingFailed(
                    "query parameters need a keyed top level, but \(type(of: value)) encodes a single value"
                ))
        }
    }
}

extension QueryParameters: ExpressibleByDictionaryLiteral {
    /// `["name": value]`. A name written twice keeps its last value.
    ///
    /// ```swift
    /// let parameters: QueryParameters = ["q": "cats", "limit": 10]
    /// ```
    public init(dictionaryLiteral elements: (String, QueryValue)...) {
        self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }
}
