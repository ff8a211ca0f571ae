public import Foundation

/// The body of a request.
///
/// Build one with a static factory, so the call site always reads `.format(value)`: raw data,
/// text, JSON, forms, multipart forms, files and `AsyncSequence` streams (the last three are
/// streamed, never loaded whole into memory), and XML with `CourierXML`.
///
/// ```swift
/// var body: RequestBody? { .json(NewUser(name: "Ada")) }
/// var body: RequestBody? { .data(png, contentType: "image/png") }
/// ```
///
/// A body on a GET or HEAD request is refused with ``InvalidRequest/bodyNotAllowed(method:)``.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case data(Data)
        case json(any Encodable & Sendable, encoder: JSONEncoder?)
        /// Bytes made when the request is built, from the client's configuration.
        case deferred(@Sendable (Configuration) throws(CourierError) -> Data)
        /// A streamed body, made when the request is built (a file is measured then).
        case stream(@Sendable () throws(CourierError) -> BodyStream)
    }

    let content: Content
    /// The `Content-Type` this body is sent with, unless the endpoint sets one itself.
    public let contentType: String
    /// Other headers the body's format calls for (a SOAP 1.1 `SOAPAction`, say), each sent
    /// unless the endpoint or the configuration sets a header of that name.
    package let headers: [HeaderItem]

    init(content: Content, contentType: String, headers: [HeaderItem] = []) {
        self.content = content
        self.contentType = contentType
        self.headers = headers
    }

    /// Raw bytes, sent as they are.
    /// - Parameters:
    ///   - data: the bytes.
    ///   - contentType: the media type; `application/octet-stream` by default.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// Text, sent as UTF-8.
    ///
    /// ```swift
    /// var body: RequestBody? { .text("hello", contentType: "text/plain; charset=utf-8") }
    /// ```
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(content: .data(Data(text.utf8)), contentType: contentType)
    }

    /// Any `Encodable` value as JSON, encoded with `encoder` or, when `nil`, the client's
    /// ``Configuration/encoder``. Sent as `application/json`.
    ///
    /// An encoder that throws fails the call with ``InvalidRequest/encodingFailed(_:underlyingError:)``.
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(content: .json(value, encoder: encoder), contentType: "application/json")
    }

    /// Bytes produced by `encode` when the request is built: the way to add a format of your own
    /// (CourierXML builds its `.xml` bodies on it).
    ///
    /// ```swift
    /// static func tsv(_ rows: [[String]]) -> RequestBody {   // in an extension of RequestBody
    ///     .custom(contentType: "text/tab-separated-values") { Data(rows.map { $0.joined(separator: "\t") }.joined(separator: "\n").utf8) }
    /// }
    /// ```
    /// - Parameters:
    ///   - contentType: the media type.
    ///   - headers: other headers the format calls for, sent unless the endpoint sets them.
    ///   - encode: makes the bytes, once per build of the request. An error it throws fails the
    ///     call with ``InvalidRequest/encodingFailed(_:underlyingError:)`` (a ``CourierError`` is
    ///     passed through as it is).
    public static func custom(
        contentType: String, headers: [HeaderItem] = [],
        encode: @escaping @Sendable () throws -> Data
    ) -> RequestBody {
        RequestBody(
            content: .deferred { _ throws(CourierError) in
                do {
                    return try encode()
                } catch let error as CourierError {
                    throw error
                } catch let error as EncodingError {
                    throw .invalidRequest(.encodingFailed(describe(error), underlyingError: error))
                } catch {
                    throw .invalidRequest(.encodingFailed(String(describing: error), underlyingError: error))
                }
            }, contentType: contentType, headers: headers)
    }

    /// A file on disk, streamed while it is sent: it is never loaded whole into memory. Its size
    /// is taken when the request is built and sent as `Content-Length`.
    ///
    /// ```swift
    /// var body: RequestBody? { .file(URL(fileURLWithPath: "/tmp/report.pdf")) }   // application/pdf
    /// ```
    /// - Parameters:
    ///   - url: a file URL.
    ///   - contentType: the media type; when `nil`, derived from the file's extension
    ///     (`application/octet-stream` for an unknown one).
    ///
    /// A missing or unreadable file fails the call with ``InvalidRequest/bodySourceFailed(_:underlyingError:)``
    /// before anything is sent; a file that changes size while it is sent fails it the same way.
    public static func file(_ url: URL, contentType: String? = nil) -> RequestBody {
        RequestBody(
            content: .stream { () throws(CourierError) in try BodyStream(file: url) },
            contentType: contentType ?? MediaTypes.forFile(url))
    }

    /// A body read from an `AsyncSequence` of chunks (`Data`, `[UInt8]`, …) while it is sent.
    ///
    /// ```swift
    /// let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
    /// var body: RequestBody? { .stream(chunks, contentType: "application/x-ndjson") }
    /// ```
    /// The sequence is read once: a second ``Call/resume()`` of the same call fails with
    /// ``InvalidRequest/bodyNotReplayable``, and a 401 is returned rather than replayed.
    /// - Parameters:
    ///   - chunks: the body, in order; an error it throws fails the call with
    ///     ``InvalidRequest/bodySourceFailed(_:underlyingError:)``.
    ///   - length: the exact total, when known (sent as `Content-Length`); `nil` sends the body
    ///     with chunked transfer encoding.
    ///   - contentType: the media type.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int64? = nil, contentType: String = "application/octet-stream"
    ) -> RequestBody where Chunks.Element: DataProtocol {
        let body = BodyStream(chunks, length: length)
        return RequestBody(content: .stream { body }, contentType: contentType)
    }

    /// A body read from an `AsyncSequence` of single bytes while it is sent, in 64 KiB chunks.
    /// Read once, as ``stream(_:length:contentType:)``.
    public static func stream<Bytes: AsyncSequence & Sendable>(
        bytes: Bytes, length: Int64? = nil, contentType: String = "application/octet-stream"
    ) -> RequestBody where Bytes.Element == UInt8 {
        let body = BodyStream(bytes: bytes, length: length)
        return RequestBody(content: .stream { body }, contentType: contentType)
    }

    /// A ``BodyStream`` you built yourself.
    package static func stream(_ body: BodyStream, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .stream { body }, contentType: contentType)
    }

    /// What the transport sends, built from the client's configuration.
    /// - Parameter uploadMeter: where upload progress goes, when someone observes it
    ///   (``Call/withProgress()``): the body is then counted as the transport reads it.
    /// - Throws: ``InvalidRequest/encodingFailed(_:underlyingError:)`` if an encoder throws;
    ///   ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` for a file that cannot be read.
    func transportBody(configuration: Configuration, uploadMeter: ProgressMeter? = nil) throws(CourierError) -> TransportBody {
        let body = try encodedBody(configuration: configuration)
        guard let uploadMeter else { return body }
        return .stream(body.counted(by: uploadMeter))
    }

    private func encodedBody(configuration: Configuration) throws(CourierError) -> TransportBody {
        switch content {
        case .data(let data):
            return .data(data)
        case .json(let value, let encoder):
            do {
                return .data(try (encoder ?? configuration.encoder).encode(value))
            } catch let error as EncodingError {
                throw .invalidRequest(.encodingFailed(Self.describe(error), underlyingError: error))
            } catch {
                throw .invalidRequest(.encodingFailed(String(describing: type(of: error)), underlyingError: error))
            }
        case .deferred(let encode):
            return .data(try encode(configuration))
        case .stream(let makeStream):
            return .stream(try makeStream())
        }
    }

    /// The coding path and the encoder's explanation, never the value itself.
    static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "invalid value at \(path.isEmpty ? "the top level" : path): \(context.debugDescription)"
        @unknown default:
            return "encoding error"
        }
    }
}
