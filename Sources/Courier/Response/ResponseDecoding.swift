package import Foundation

/// The value to expect from a response that has no body: 204 No Content, 205, or a HEAD request.
///
/// ```swift
/// _ = try await client.enqueue(DeleteUser(id: 42)).resume(expecting: EmptyResponse.self)
/// ```
/// Any body that does arrive is ignored; use ``Call/resume()`` to see it.
public struct EmptyResponse: Decodable, Sendable, Equatable {
    /// Creates an empty response.
    public init() {}

    /// Decodes from anything, ignoring its content.
    public init(from decoder: any Decoder) throws {}
}

extension Response {
    /// The body as text, decoded with the `charset` of the `Content-Type` header (UTF-8 when
    /// none is given), a UTF-8 byte-order mark dropped: what `decode(String.self)` gives.
    package func text() throws(CourierError) -> String {
        let charset = head.charset ?? "utf-8"
        guard let encoding = Self.encoding(forCharset: charset) else {
            throw .decoding(DecodingFailure(reason: .unsupportedCharset(charset), response: self, expectedType: "String"))
        }
        var bytes = body
        if encoding == .utf8, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes = bytes.dropFirst(3)
        }
        // Foundation drops a trailing partial UTF-16 or UTF-32 code unit without a word (a
        // 5-byte UTF-32 body reads as one character): a truncated body is invalid text.
        let unit = Self.codeUnitSize(of: encoding)
        guard bytes.count % unit == 0, var text = String(data: bytes, encoding: encoding) else {
            throw .decoding(DecodingFailure(reason: .invalidText(charset: charset), response: self, expectedType: "String"))
        }
        // A byte-order mark is no part of the text, in UTF-16 and UTF-32 as in UTF-8 (Foundation
        // keeps it for the charsets that name their byte order).
        if unit > 1, text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        return text
    }

    /// The size in bytes of `encoding`'s code unit: 2 for UTF-16, 4 for UTF-32, else 1.
    private static func codeUnitSize(of encoding: String.Encoding) -> Int {
        switch encoding {
        case .utf16, .utf16LittleEndian, .utf16BigEndian: 2
        case .utf32, .utf32LittleEndian, .utf32BigEndian: 4
        default: 1
        }
    }

    /// Decodes the body as `type` exactly as ``Call/resume(expecting:)`` would have, with the
    /// decoders of the call that received it (a response made by hand: a default client's); or
    /// with `decoder`, whatever the `Content-Type`, when you pass one.
    ///
    /// ```swift
    /// let user = try await client.enqueue(GetUser(id: 42)).resume().decode(User.self)
    /// let report = try response.decode(Report.self, using: JSONBodyDecoder(snakeCaseDecoder))
    /// ```
    /// - Throws: ``CourierError/decoding(_:)`` keeping the decoder's error and this response
    ///   (``DecodingFailure/Reason/unsupportedMediaType(_:)`` when no decoder reads the body).
    public func decode<T: Decodable>(_ type: T.Type, using decoder: (any ResponseBodyDecoder)? = nil) throws(CourierError) -> T {
        if Self.isBuiltIn(type) { return try builtIn(type) }
        if let decoder { return try decoded(type, using: decoder) }
        let context = decoding ?? .standard
        return try decode(type, preferred: context.preferred, json: context.json, decoders: context.decoders)
    }

    /// `decoder`'s value for the body, its errors wrapped (the built-in types already handled).
    private func decoded<T: Decodable>(_ type: T.Type, using decoder: some ResponseBodyDecoder) throws(CourierError) -> T {
        do {
            return try decoder.decode(T.self, from: self)
        } catch let error as DecodingError {
            throw .decoding(DecodingFailure(reason: .decodingError(error), response: self, expectedType: "\(T.self)"))
        } catch let error as CourierError {
            throw error
        } catch {
            throw .decoding(DecodingFailure(reason: .decoderError(error), response: self, expectedType: "\(T.self)"))
        }
    }

    /// Decodes the body as `type` with the decoder its `Content-Type` calls for: `preferred`
    /// when it is given (an endpoint's own decoder), else JSON for `application/json`,
    /// any `+json` type or a response without `Content-Type`, else the first of `decoders` that
    /// reads the media type.
    /// - Throws: ``CourierError/decoding(_:)``; ``DecodingFailure/Reason/unsupportedMediaType(_:)``
    ///   when no decoder reads the response's media type (an HTML error page, say).
    func decode<T: Decodable>(
        _ type: T.Type, preferred: (any ResponseBodyDecoder)?, json: JSONDecoder,
        decoders: [any ResponseBodyDecoder]
    ) throws(CourierError) -> T {
        if Self.isBuiltIn(type) { return try builtIn(type) }
        if let preferred { return try decoded(type, using: preferred) }
        guard !head.isJSONOrUntyped, let mediaType = head.mediaType else {
            return try decoded(type, using: JSONBodyDecoder(json))
        }
        guard let decoder = decoders.first(where: { $0.canDecode(mediaType: mediaType) }) else {
            throw .decoding(DecodingFailure(reason: .unsupportedMediaType(mediaType), response: self, expectedType: "\(T.self)"))
        }
        return try decoded(type, using: decoder)
    }

    /// Whether `type` is `EmptyResponse`, `Data` or `String`, which need no decoder. Asked before
    /// anything of type `T?` is made: in generic code that looks up `Optional<T>`'s metadata.
    private static func isBuiltIn<T>(_ type: T.Type) -> Bool {
        T.self == EmptyResponse.self || T.self == Data.self || T.self == String.self
    }

    /// The value of a built-in type (see ``isBuiltIn(_:)``): ``EmptyResponse``, the body, or
    /// its ``text()``.
    /// - Throws: the error of ``text()``; ``CourierError/decoding(_:)`` for any other type.
    private func builtIn<T: Decodable>(_ type: T.Type) throws(CourierError) -> T {
        if let empty = EmptyResponse() as? T { return empty }
        if let data = body as? T { return data }
        if let text = try text() as? T { return text }
        throw .decoding(DecodingFailure(reason: .other("not Data, String or EmptyResponse"), response: self, expectedType: "\(T.self)"))
    }

    /// The `String.Encoding` for an IANA charset name (lower-cased), for the charsets Courier
    /// decodes: UTF-8, US-ASCII, ISO-8859-1/-2, windows-1252, UTF-16 and UTF-32 (with or
    /// without endianness); `nil` for any other.
    package static func encoding(forCharset charset: String) -> String.Encoding? {
        switch charset {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "l1": .isoLatin1
        case "iso-8859-2", "latin2": .isoLatin2
        case "windows-1252", "cp1252": .windowsCP1252
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        default: nil
        }
    }
}
