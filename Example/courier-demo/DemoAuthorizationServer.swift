import Courier
import CourierOAuth
import FlyingFox
import Foundation

// The demo API's authorization server for the interactive flows: authorization code with PKCE
// (RFC 6749 §4.1, RFC 7636, with `iss` of RFC 9207), device authorization (RFC 8628),
// revocation (RFC 7009) and metadata (RFC 8414). The token endpoint itself is `POST /oauth/token`
// in DemoAPI.swift; the grants below are answered by ``TokenAuthority``.
//
// - `GET  /.well-known/oauth-authorization-server`  the metadata; `issuer` is `http://<Host>`
// - `GET  /oauth/authorize?…`      the "user" approves at once: 302 to `redirect_uri` with
//   `code`, `state` and `iss` (or `error=access_denied` when `login_hint=deny`)
// - `POST /oauth/device_authorization`  a device code and a user code (`interval` 1 s)
// - `POST /oauth/device`           the "user" on a second screen: `user_code` and
//   `action=approve|deny`
// - `POST /oauth/revoke`           revokes a token's whole family; 200 for any token (§2.2)

/// An authorization code waiting to be exchanged.
struct IssuedCode: Sendable {
    var challenge: String
    var redirectURI: String
}

/// A device authorization, from its request to the user's decision.
struct DeviceGrant: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    /// How often the device may poll, in seconds (short, so the demo is quick).
    static let interval = 1

    var userCode: String
    var decision: Bool?
}

/// The JSON responses of the demo API.
enum DemoJSON {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func response(_ status: HTTPStatusCode, _ value: some Encodable, headers: HTTPHeaders = [:]) -> FlyingFox.HTTPResponse {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return FlyingFox.HTTPResponse(statusCode: status, headers: headers, body: body)
    }

    static func error(_ status: HTTPStatusCode, _ code: String, _ message: String) -> FlyingFox.HTTPResponse {
        response(status, APIErrorBody(error: code, message: message))
    }

    /// An OAuth2 error body, never cached.
    static func oauth2(_ status: HTTPStatusCode, _ code: String, _ description: String) -> FlyingFox.HTTPResponse {
        response(status, OAuth2ErrorBody(error: code, errorDescription: description), headers: [HTTPHeader("Cache-Control"): "no-store"])
    }
}

extension DemoClient {
    /// Whether `authorization` is the demo client's HTTP Basic credential (RFC 6749 §2.3.1).
    static func isAuthenticated(_ authorization: String?) -> Bool {
        guard let client = authorization.flatMap(FormEncoding.basicCredentials) else { return false }
        return client.id == id && client.secret == secret
    }
}

/// The routes of the interactive flows.
struct AuthorizationRoutes: Sendable {
    let tokens: TokenAuthority

    func install(on server: HTTPServer) async {
        await server.appendRoute("GET /.well-known/oauth-authorization-server") { request in
            let issuer = "http://\(request.headers[.host] ?? "127.0.0.1")"
            return DemoJSON.response(.ok, AuthorizationServerDocument(issuer: issuer))
        }
        await server.appendRoute("GET /oauth/authorize") { request in
            let issuer = "http://\(request.headers[.host] ?? "127.0.0.1")"
            switch await tokens.authorize(query: request.query, issuer: issuer) {
            case .redirect(let location):
                var headers = HTTPHeaders()
                headers[.location] = location
                return FlyingFox.HTTPResponse(statusCode: .found, headers: headers)
            case .refused(let why):
                // No redirect for a bad client or redirect URI (RFC 6749 §4.1.2.1): a page for the user.
                return DemoJSON.error(.badRequest, "invalid_request", why)
            }
        }
        await server.appendRoute("POST /oauth/device_authorization") { request in
            guard DemoClient.isAuthenticated(request.headers[.authorization]) else {
                return DemoJSON.oauth2(.unauthorized, "invalid_client", "unknown client or wrong secret")
            }
            let base = "http://\(request.headers[.host] ?? "127.0.0.1")"
            return DemoJSON.response(.ok, await tokens.startDeviceAuthorization(verificationURI: base + "/device"))
        }
        await server.appendRoute("POST /oauth/device") { request in
            let form = FormEncoding.parse(try await request.bodyData) ?? []
            let fields = Dictionary(form.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            guard let userCode = fields["user_code"],
                await tokens.decide(userCode: userCode, approve: fields["action"] == "approve")
            else {
                return DemoJSON.error(.notFound, "unknown_user_code", "no device authorization has this user code")
            }
            return DemoJSON.response(.ok, ["status": "recorded"])
        }
        await server.appendRoute("POST /oauth/revoke") { request in
            guard DemoClient.isAuthenticated(request.headers[.authorization]) else {
                return DemoJSON.oauth2(.unauthorized, "invalid_client", "unknown client or wrong secret")
            }
            let form = FormEncoding.parse(try await request.bodyData) ?? []
            guard let token = form.first(where: { $0.name == "token" })?.value else {
                return DemoJSON.oauth2(.badRequest, "invalid_request", "send the token to revoke")
            }
            await tokens.revoke(token)
            return FlyingFox.HTTPResponse(statusCode: .ok)
        }
    }
}

/// The server's RFC 8414 metadata.
private struct AuthorizationServerDocument: Encodable {
    var issuer: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var deviceAuthorizationEndpoint: String
    var revocationEndpoint: String
    var codeChallengeMethodsSupported = ["S256"]
    var authorizationResponseIssParameterSupported = true
    var grantTypesSupported = ["authorization_code", "refresh_token", "password", DeviceGrant.grantType]

    init(issuer: String) {
        self.issuer = issuer
        authorizationEndpoint = issuer + "/oauth/authorize"
        tokenEndpoint = issuer + "/oauth/token"
        deviceAuthorizationEndpoint = issuer + "/oauth/device_authorization"
        revocationEndpoint = issuer + "/oauth/revoke"
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case grantTypesSupported = "grant_types_supported"
    }
}

/// A device authorization response (RFC 8628 §3.2).
struct DeviceAuthorizationDocument: Encodable, Sendable {
    var deviceCode: String
    var userCode: String
    var verificationURI: String
    var verificationURIComplete: String
    var expiresIn = 300
    var interval = DeviceGrant.interval

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete", expiresIn = "expires_in", interval
    }
}

extension TokenAuthority {
    /// Where `GET /oauth/authorize` sends the browser.
    enum Authorization {
        case redirect(String)
        case refused(String)
    }

    /// The "user" approves at once (or denies, with `login_hint=deny`): a code bound to the PKCE
    /// challenge and the redirect URI, sent back with the `state` and this server's `iss`.
    func authorize(query: [FlyingFox.HTTPRequest.QueryItem], issuer: String) -> Authorization {
        let fields = Dictionary(query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard fields["client_id"] == DemoClient.id else { return .refused("unknown client_id") }
        // Only loopback redirects (RFC 8252 §7.3): the demo's native "app" is the command line.
        guard let redirectURI = fields["redirect_uri"], let redirect = URLComponents(string: redirectURI),
            redirect.scheme == "http", redirect.host == "127.0.0.1" || redirect.host == "[::1]" || redirect.host == "::1"
        else { return .refused("redirect_uri must be an http loopback address") }
        var answer = redirect
        var items = answer.queryItems ?? []
        if fields["response_type"] != "code" {
            items.append(URLQueryItem(name: "error", value: "unsupported_response_type"))
        } else if fields["code_challenge_method"] != "S256" || (fields["code_challenge"] ?? "").isEmpty {
            items.append(URLQueryItem(name: "error", value: "invalid_request"))
            items.append(URLQueryItem(name: "error_description", value: "PKCE with S256 is required"))
        } else if fields["login_hint"] == "deny" {
            items.append(URLQueryItem(name: "error", value: "access_denied"))
            items.append(URLQueryItem(name: "error_description", value: "The user declined"))
        } else {
            let code = "code-" + UUID().uuidString.lowercased()
            codes[code] = IssuedCode(challenge: fields["code_challenge"] ?? "", redirectURI: redirectURI)
            items.append(URLQueryItem(name: "code", value: code))
        }
        if let state = fields["state"] { items.append(URLQueryItem(name: "state", value: state)) }
        items.append(URLQueryItem(name: "iss", value: issuer))
        answer.queryItems = items
        return .redirect(answer.string ?? redirectURI)
    }

    /// The `authorization_code` grant: the code once, with its redirect URI, and a verifier whose
    /// S256 challenge is the one the code was issued for.
    func exchange(code: String, redirectURI: String?, verifier: String?) -> Answer {
        guard let issued = codes.removeValue(forKey: code) else { return invalidGrant("unknown or spent authorization code") }
        guard redirectURI == issued.redirectURI else { return invalidGrant("redirect_uri differs from the authorization request") }
        guard let verifier, Self.challenge(for: verifier) == issued.challenge else {
            return invalidGrant("code_verifier does not match the code_challenge (PKCE)")
        }
        return signIn()
    }

    /// BASE64URL(SHA-256(verifier)) without padding (RFC 7636 §4.2).
    static func challenge(for verifier: String) -> String {
        Data(SHA256.hash(Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A new device authorization.
    func startDeviceAuthorization(verificationURI: String) -> DeviceAuthorizationDocument {
        let deviceCode = "dc-" + UUID().uuidString.lowercased()
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        let userCode = String((0..<8).map { _ in letters.randomElement() ?? "B" }).chunked(by: 4)
        devices[deviceCode] = DeviceGrant(userCode: userCode)
        deviceCodes[userCode] = deviceCode
        return DeviceAuthorizationDocument(
            deviceCode: deviceCode, userCode: userCode, verificationURI: verificationURI,
            verificationURIComplete: verificationURI + "?user_code=" + userCode)
    }

    /// The user's decision on the second screen; `false` for an unknown user code.
    func decide(userCode: String, approve: Bool) -> Bool {
        guard let deviceCode = deviceCodes[userCode], devices[deviceCode]?.decision == nil else { return false }
        devices[deviceCode]?.decision = approve
        return true
    }

    /// The device's poll: pending until the user decides (RFC 8628 §3.5).
    func pollDevice(_ deviceCode: String) -> Answer {
        guard let grant = devices[deviceCode] else {
            return .rejected(.badRequest, OAuth2ErrorBody(error: "expired_token", errorDescription: "unknown or finished device code"))
        }
        switch grant.decision {
        case nil:
            return .rejected(.badRequest, OAuth2ErrorBody(error: "authorization_pending", errorDescription: "the user has not decided yet"))
        case false?:
            devices[deviceCode] = nil
            return .rejected(.badRequest, OAuth2ErrorBody(error: "access_denied", errorDescription: "the user declined"))
        case true?:
            devices[deviceCode] = nil
            return signIn()
        }
    }
}

extension String {
    /// `ABCDEFGH` → `ABCD-EFGH`.
    fileprivate func chunked(by size: Int) -> String {
        stride(from: 0, to: count, by: size).map { offset -> String in
            let start = index(startIndex, offsetBy: offset)
            return String(self[start..<(index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex)])
        }.joined(separator: "-")
    }
}
