public import Foundation

/// An RFC 9457 problem details object (`application/problem+json`), as APIs send with errors.
///
/// A response that Courier does not accept throws ``CourierError/response(_:)``; when its body
/// is a problem details object, read it from the response:
///
/// ```swift
/// do {
///     try await client.enqueue(Transfer(amount: 100)).resume()
/// } catch {
///     if let problem = error.response?.problemDetails {
///         print(problem.title ?? "", problem.detail ?? "")   // "Out of credit", "Your balance is 30…"
///         let extra = try problem.extensions(as: Balance.self)  // members beyond the standard five
///     }
/// }
/// ```
public struct ProblemDetails: Sendable, Equatable {
    /// A URI reference identifying the problem type; `"about:blank"` when the body has none
    /// (RFC 9457 §3.1.1).
    public var type: String
    /// A short, human-readable summary of the problem type.
    public var title: String?
    /// The HTTP status code the server generated for this occurrence, as the body states it.
    public var status: Int?
    /// A human-readable explanation specific to this occurrence.
    public var detail: String?
    /// A URI reference identifying this occurrence.
    public var instance: String?
    /// The whole body, for extension members (see ``extensions(as:decoder:)``).
    package var body: Data

    /// Creates problem details, to test code that handles them.
    ///
    /// ```swift
    /// let problem = ProblemDetails(title: "Out of credit", status: 403, detail: "Your balance is 30.")
    /// ```
    public init(
        type: String = "about:blank", title: String? = nil, status: Int? = nil, detail: String? = nil,
        instance: String? = nil, body: Data = Data()
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.body = body
    }

    /// Reads a problem details JSON object. Members of the wrong JSON type are ignored, as RFC
    /// 9457 §3.1 asks; `nil` when the body is not a JSON object.
    init?(json body: Data) {
        guard let members = try? JSONDecoder().decode(Members.self, from: body) else { return nil }
        self.init(
            type: members.type ?? "about:blank", title: members.title, status: members.status,
            detail: members.detail, instance: members.instance, body: body)
    }

    /// The five standard members, each read leniently: a member of the wrong type is `nil`.
    private struct Members: Decodable {
        var type, title, detail, instance: String?
        var status: Int?

        enum CodingKeys: String, CodingKey { case type, title, status, detail, instance }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try? container.decodeIfPresent(String.self, forKey: .type)
            title = try? container.decodeIfPresent(String.self, forKey: .title)
            status = try? container.decodeIfPresent(Int.self, forKey: .status)
            detail = try? container.decodeIfPresent(String.self, forKey: .detail)
            instance = try? container.decodeIfPresent(String.self, forKey: .instance)
        }
    }

    /// Decodes the whole body as `type`, to read the extension members a problem type defines.
    /// - Throws: ``CourierError/decoding(_:)`` when the body does not decode as `type`.
    public func extensions<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(CourierError) -> T {
        // `status` is whatever the body says (99999, -1, …); a Response only holds a real status
        // code (swift-http-types traps outside 0...999), so keep it only when it is one.
        let code = status.flatMap { (100...599).contains($0) ? $0 : nil } ?? 500
        let response = Response(
            statusCode: code, headers: ["Content-Type": "application/problem+json"],
            body: body, url: URL(fileURLWithPath: "/"))
        return try response.decode(type, using: JSONBodyDecoder(decoder))
    }
}

extension Response {
    /// The RFC 9457 problem details of this response, when its `Content-Type` is
    /// `application/problem+json` and the body is a JSON object; otherwise `nil`.
    public var problemDetails: ProblemDetails? {
        guard head.mediaType == "application/problem+json" else { return nil }
        return ProblemDetails(json: body)
    }
}
