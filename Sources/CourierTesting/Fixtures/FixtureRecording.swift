import Courier
import Foundation
import HTTPTypes

/// What a ``FixtureTransport`` writes for a received response: the response minus framing,
/// with its secrets hidden.
enum FixtureRecording {
    /// Hop-by-hop fields (RFC 9110 §7.6.1), which describe one connection, not the response.
    static let hopByHopFields: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]

    /// Content codings a transport that decodes gzip undoes (see `Transport/decodesGzip`).
    static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate"]

    /// The reason phrases of the statuses swift-http-types names, for responses that carry none
    /// (URLSession reports none): `HTTP/1.1 404 Not Found` reads better than `HTTP/1.1 404`.
    static let standardReasonPhrases: [Int: String] = Dictionary(
        [
            HTTPResponse.Status.ok, .created, .accepted, .nonAuthoritativeInformation, .noContent, .resetContent, .partialContent,
            .multipleChoices, .movedPermanently, .found, .seeOther, .notModified, .temporaryRedirect, .permanentRedirect,
            .badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .notAcceptable, .proxyAuthenticationRequired,
            .requestTimeout, .conflict, .gone, .lengthRequired, .preconditionFailed, .contentTooLarge, .uriTooLong,
            .unsupportedMediaType, .rangeNotSatisfiable, .expectationFailed, .misdirectedRequest, .unprocessableContent, .tooEarly,
            .upgradeRequired, .preconditionRequired, .tooManyRequests, .requestHeaderFieldsTooLarge, .unavailableForLegalReasons,
            .internalServerError, .notImplemented, .badGateway, .serviceUnavailable, .gatewayTimeout, .httpVersionNotSupported,
            .networkAuthenticationRequired,
        ].map { ($0.code, $0.reasonPhrase) },
        uniquingKeysWith: { first, _ in first })

    /// The fixture for `response`.
    /// - Parameters:
    ///   - redaction: hides secret header values, secret query values in URL-valued headers,
    ///     and the values of secret fields of JSON and form bodies.
    ///   - bodyWasDecoded: whether the transport decompressed the body; its `Content-Encoding`
    ///     and `Content-Length` then describe bytes that are not the body, and are left out.
    static func fixture(of response: Response, redaction: Redaction, bodyWasDecoded: Bool) -> FixtureFormat.Fixture {
        let codings = response.headers[values: .contentEncoding]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let decoded = bodyWasDecoded && !codings.isEmpty && codings.allSatisfy(decodedCodings.contains)
        var fields = HTTPFields()
        for field in response.headers {
            let name = field.name.canonicalName
            if hopByHopFields.contains(name) { continue }
            if decoded && (field.name == .contentEncoding || field.name == .contentLength) { continue }
            fields.append(field)
        }
        let body = redactedBody(response.body, mediaType: response.mediaType, redaction: redaction)
        // A length that is not the body's would make the file unreadable; an empty body (HEAD,
        // 304) keeps the length the server announced, if it is a number.
        if let length = fields[.contentLength] {
            let declared = FixtureFormat.decimalLength(length)
            if !body.isEmpty, declared != body.count {
                fields[.contentLength] = String(body.count)
            } else if body.isEmpty, declared == nil {
                fields[.contentLength] = nil
            }
        }
        return FixtureFormat.Fixture(
            statusCode: response.statusCode,
            reasonPhrase: response.status.reasonPhrase.isEmpty ? standardReasonPhrases[response.statusCode] ?? "" : response.status.reasonPhrase,
            fields: redaction.redact(headers: fields).map { FixtureFormat.Field(name: $0.name, value: $0.value) },
            body: body)
    }

    /// `body` with the values of secret fields replaced, for JSON (also when the response names
    /// no media type) and form bodies; the bytes as they were when nothing is secret or the body
    /// is neither.
    static func redactedBody(_ body: Data, mediaType: String?, redaction: Redaction) -> Data {
        guard !body.isEmpty else { return body }
        let isJSON = mediaType.map { $0 == "application/json" || $0.hasSuffix("+json") } ?? true
        if isJSON {
            // Written again only when a value was hidden: compare with the same serialization
            // without redaction.
            guard let redacted = redaction.redact(jsonBody: body), let plain = Redaction.disabled.redact(jsonBody: body),
                redacted != plain
            else { return body }
            return Data(redacted.utf8)
        }
        if mediaType == "application/x-www-form-urlencoded" {
            guard let redacted = redaction.redact(formBody: body), Data(redacted.utf8) != body else { return body }
            return Data(redacted.utf8)
        }
        return body
    }
}
