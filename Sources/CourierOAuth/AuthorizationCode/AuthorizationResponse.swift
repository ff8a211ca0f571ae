import Courier
import Foundation

/// Reads an authorization response (RFC 6749 §4.1.2): the redirect the browser makes back to
/// the client after the user signed in. A pure function of the redirect and what the request
/// sent, so that the fuzz target and the tests exercise exactly what the flow runs.
enum AuthorizationResponse {
    /// The longest redirect URL accepted, in UTF-8 bytes: a real one is a few hundred.
    static let maximumLength = 8192

    /// The parameters an authorization response defines; each may appear at most once.
    static let responseParameters: Set<String> = ["code", "state", "error", "error_description", "error_uri", "iss"]

    /// What the request sent, which the response must match.
    struct Expectation: Sendable {
        var redirectURI: URL
        var state: String
        var issuer: String?
        var requiresIssuer: Bool
    }

    /// The authorization code in `redirect`, checked in this order:
    /// 1. structure: at most ``maximumLength`` bytes, the redirect URI's scheme, host, port and
    ///    path, a well-formed query, no response parameter twice → `AuthorizationFailure.malformedResponse(_:)`;
    /// 2. `state` missing or different → `AuthorizationFailure.stateMismatch`, before anything
    ///    else the response says, so that a forged redirect cannot make an `error=` reach the app;
    /// 3. `error` → `AuthorizationFailure.denied(_:)`;
    /// 4. `iss` (RFC 9207) against the expected issuer → `AuthorizationFailure.issuerMismatch(expected:received:)`;
    /// 5. `code` missing or empty → `AuthorizationFailure.malformedResponse(_:)`.
    ///
    /// Failure texts name what is wrong, never a value the redirect carried (but a denial
    /// carries the server's `error`, `error_description` and `error_uri`, after `state` matched).
    static func code(from redirect: URL, expecting expected: Expectation) throws(AuthorizationFailure) -> String {
        let absolute = redirect.absoluteString
        guard absolute.utf8.count <= maximumLength else {
            throw .malformedResponse("the redirect URL is longer than \(maximumLength) bytes")
        }
        guard let components = URLComponents(url: redirect, resolvingAgainstBaseURL: false) else {
            throw .malformedResponse("the redirect is not a URL")
        }
        guard let expectedComponents = URLComponents(url: expected.redirectURI, resolvingAgainstBaseURL: false),
            sameTarget(components, expectedComponents)
        else {
            throw .malformedResponse("the redirect does not go to the redirect URI (scheme, host, port or path differ)")
        }
        let parameters = try parseQuery(components.percentEncodedQuery ?? "")
        var values: [String: String] = [:]
        for (name, value) in parameters where responseParameters.contains(name) {
            guard values.updateValue(value, forKey: name) == nil else {
                throw .malformedResponse("the parameter \(name) appears more than once")
            }
        }

        guard let state = values["state"], PKCE.constantTimeEquals(state, expected.state) else {
            throw .stateMismatch
        }
        if let error = values["error"] {
            guard !error.isEmpty else { throw .malformedResponse("the error parameter is empty") }
            throw .denied(OAuth2Error(code: error, errorDescription: values["error_description"], errorURI: values["error_uri"]))
        }
        if let issuer = expected.issuer {
            if let received = values["iss"] {
                guard received == issuer else { throw .issuerMismatch(expected: issuer, received: received) }
            } else if expected.requiresIssuer {
                throw .issuerMismatch(expected: issuer, received: nil)
            }
        }
        guard let code = values["code"], !code.isEmpty else {
            throw .malformedResponse("the response has no authorization code")
        }
        return code
    }

    /// Whether two URLs have the same scheme and host (both compared case-insensitively), the
    /// same port (a scheme's default port equals no port) and the same percent-encoded path
    /// (an empty path equals `/`).
    static func sameTarget(_ lhs: URLComponents, _ rhs: URLComponents) -> Bool {
        func port(_ components: URLComponents) -> Int? {
            if let port = components.port { return port }
            switch components.scheme?.lowercased() {
            case "http": return 80
            case "https": return 443
            default: return nil
            }
        }
        func path(_ components: URLComponents) -> String {
            components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.percentEncodedHost?.lowercased() == rhs.percentEncodedHost?.lowercased()
            && port(lhs) == port(rhs)
            && path(lhs) == path(rhs)
    }

    /// The query's `name=value` pairs in order, decoded as `application/x-www-form-urlencoded`
    /// (`+` is a space, then percent-decoding; RFC 6749 §4.1.2). Empty pieces (`a=1&&b=2`) are
    /// skipped; a piece without `=` is a name with an empty value.
    /// - Throws: `AuthorizationFailure.malformedResponse(_:)` for a bad percent escape or a
    ///   name or value that is not UTF-8.
    static func parseQuery(_ query: String) throws(AuthorizationFailure) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            result.append((try formDecode(name), try formDecode(value)))
        }
        return result
    }

    private static func formDecode(_ text: Substring) throws(AuthorizationFailure) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        // Decoding replaces invalid UTF-8 with U+FFFD, so a round trip that changes the bytes
        // means they were not UTF-8.
        guard let bytes = PercentEncoding.decodeBytes(spaced), case let decoded = String(decoding: bytes, as: UTF8.self),
            decoded.utf8.elementsEqual(bytes)
        else {
            throw .malformedResponse("the query is not valid form encoding")
        }
        return decoded
    }
}
