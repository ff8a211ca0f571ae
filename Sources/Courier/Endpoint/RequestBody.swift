public import Foundation

/// The body of a request.
///
/// Build one with a static factory; more formats (form, multipart, files, streams, XML) are
/// added as factories on this type, so the call site always reads `.format(value)`.
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
    }

    let content: Content
    /// The `Content-Type` this body is sent with, unless the endpoint sets one itself.
    public let contentType: String

    /// Raw bytes, sent as they are.
    /// - Parameters:
    ///   - data: the bytes.
    ///   - contentType: the media type; `application/octet-stream` by default.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// Any `Encodable` value as JSON, encoded with `encoder` or, when `nil`, the client's
    /// ``Configuration/encoder``. Sent as `application/json`.
    ///
    /// An encoder that throws fails the call with ``InvalidRequest/encodingFailed(_:)``.
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(content: .json(value, encoder: encoder), contentType: "application/json")
    }

    /// The bytes to send.
    /// - Throws: ``InvalidRequest/encodingFailed(_:)`` if an encoder throws.
    func encoded(defaultEncoder: JSONEncoder) throws(CourierError) -> Data {
        switch content {
        case .data(let data):
            return data
        case .json(let value, let encoder):
            do {
                return try (encoder ?? defaultEncoder).encode(value)
            } catch let error as EncodingError {
                throw .invalidRequest(.encodingFailed(Self.describe(error)))
            } catch {
                throw .invalidRequest(.encodingFailed(String(describing: type(of: error))))
            }
        }
    }

    /// The coding path and the encoder's explanation, never the value itself.
    private static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "invalid value at \(path.isEmpty ? "the top level" : path): \(context.debugDescription)"
        @unknown default:
            return "encoding error"
        }
    }
}
