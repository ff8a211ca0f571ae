import Courier
public import Foundation

/// An authorization server's metadata (RFC 8414 §2, and the OpenID Connect Discovery 1.0
/// document, which has the same fields): its issuer identifier, its endpoints and what it
/// supports. Get it with ``discover(issuer:configuration:timeout:)``.
///
/// ```swift
/// let metadata = try await AuthorizationServerMetadata.discover(issuer: URL(string: "https://auth.example.com")!)
/// let tokens = try metadata.tokenEndpoint(clientAuthentication: .publicClient(clientID: "my-cli"))
/// let flow = try metadata.deviceAuthorizationFlow(tokenEndpoint: tokens, scope: "profile")
/// ```
///
/// Decoding checks what Courier relies on: `issuer` is a non-empty string; every endpoint URL
/// present is `https` (plain `http` only for a loopback host: `localhost`, `127.0.0.0/8`,
/// `::1`, for tests and local development), with a host, and without user-info or a fragment;
/// the lists are arrays of strings; `authorization_response_iss_parameter_supported` is a
/// Boolean (`false` when absent). A field Courier does not know is ignored.
public struct AuthorizationServerMetadata: Sendable, Equatable, Decodable {
    /// The issuer identifier (`issuer`), as the server wrote it. ``discover(issuer:configuration:timeout:)``
    /// checks that it is exactly the issuer asked for.
    public let issuer: String
    /// `authorization_endpoint`: where the authorization code flow sends the user.
    public let authorizationEndpoint: URL?
    /// `token_endpoint`.
    public let tokenEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628 §4).
    public let deviceAuthorizationEndpoint: URL?
    /// `revocation_endpoint` (RFC 7009).
    public let revocationEndpoint: URL?
    /// `introspection_endpoint` (RFC 7662).
    public let introspectionEndpoint: URL?
    /// `userinfo_endpoint` (OpenID Connect).
    public let userinfoEndpoint: URL?
    /// `registration_endpoint` (RFC 7591).
    public let registrationEndpoint: URL?
    /// `jwks_uri`: the server's signing keys.
    public let jwksURI: URL?
    /// `scopes_supported`.
    public let scopesSupported: [String]?
    /// `response_types_supported`.
    public let responseTypesSupported: [String]?
    /// `grant_types_supported` (RFC 8414 says `["authorization_code", "implicit"]` when absent).
    public let grantTypesSupported: [String]?
    /// `code_challenge_methods_supported` (RFC 7636): `nil` means the server does not say, not
    /// that it lacks PKCE.
    public let codeChallengeMethodsSupported: [String]?
    /// `token_endpoint_auth_methods_supported`, e.g. `client_secret_basic`.
    public let tokenEndpointAuthMethodsSupported: [String]?
    /// `revocation_endpoint_auth_methods_supported`.
    public let revocationEndpointAuthMethodsSupported: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207): whether authorization
    /// responses carry `iss`; `false` when absent.
    public let authorizationResponseIssParameterSupported: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case jwksURI = "jwks_uri"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
    }

    /// The longest URL or issuer accepted.
    static let maximumURLLength = 2048
    /// The most entries a list may hold.
    static let maximumListCount = 1000

    /// Decodes metadata, checking the fields as described on ``AuthorizationServerMetadata``.
    ///
    /// - Throws: an error whose description names the field and the problem, never its value.
    public init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch {
            throw MetadataProblem("the body is not a JSON object")
        }
        guard let issuer = try Self.string(.issuer, in: container) else { throw MetadataProblem("issuer is missing") }
        guard issuer.utf8.count <= Self.maximumURLLength else { throw MetadataProblem("issuer is too long") }
        self.issuer = issuer
        authorizationEndpoint = try Self.url(.authorizationEndpoint, in: container)
        tokenEndpoint = try Self.url(.tokenEndpoint, in: container)
        deviceAuthorizationEndpoint = try Self.url(.deviceAuthorizationEndpoint, in: container)
        revocationEndpoint = try Self.url(.revocationEndpoint, in: container)
        introspectionEndpoint = try Self.url(.introspectionEndpoint, in: container)
        userinfoEndpoint = try Self.url(.userinfoEndpoint, in: container)
        registrationEndpoint = try Self.url(.registrationEndpoint, in: container)
        jwksURI = try Self.url(.jwksURI, in: container)
        scopesSupported = try Self.list(.scopesSupported, in: container)
        responseTypesSupported = try Self.list(.responseTypesSupported, in: container)
        grantTypesSupported = try Self.list(.grantTypesSupported, in: container)
        codeChallengeMethodsSupported = try Self.list(.codeChallengeMethodsSupported, in: container)
        tokenEndpointAuthMethodsSupported = try Self.list(.tokenEndpointAuthMethodsSupported, in: container)
        revocationEndpointAuthMethodsSupported = try Self.list(.revocationEndpointAuthMethodsSupported, in: container)
        let issKey = CodingKeys.authorizationResponseIssParameterSupported
        if container.contains(issKey), !((try? container.decodeNil(forKey: issKey)) ?? false) {
            guard let flag = try? container.decode(Bool.self, forKey: issKey) else {
                throw MetadataProblem("\(issKey.rawValue) is not a Boolean")
            }
            authorizationResponseIssParameterSupported = flag
        } else {
            authorizationResponseIssParameterSupported = false
        }
    }

    /// Decodes a metadata document, or says why it is not one (a reason from ``reasons``).
    static func parse(_ data: Data) -> Result<AuthorizationServerMetadata, MetadataProblem> {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        if body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return .failure(MetadataProblem("the body is empty"))
        }
        do {
            return .success(try JSONDecoder().decode(AuthorizationServerMetadata.self, from: body))
        } catch let problem as MetadataProblem {
            return .failure(problem)
        } catch {
            return .failure(MetadataProblem("the body is not valid JSON (or is truncated)"))
        }
    }

    /// Every reason ``parse(_:)`` may give.
    static let reasons: Set<String> = {
        var reasons: Set<String> = [
            "the body is empty", "the body is not a JSON object", "the body is not valid JSON (or is truncated)",
            "issuer is missing", "issuer is too long",
        ]
        let problems = [
            "is not a string", "is empty", "is too long", "is not an absolute URL with a host", "has user-info",
            "has a fragment", "is not https (plain http is allowed only for loopback hosts)", "is not https",
            "is not an array of strings", "has too many entries", "is not a Boolean",
        ]
        for key in CodingKeys.allCases {
            for problem in problems { reasons.insert("\(key.rawValue) \(problem)") }
        }
        return reasons
    }()

    private static func string(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> String? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        guard let value = try? container.decode(String.self, forKey: key) else {
            throw MetadataProblem("\(key.rawValue) is not a string")
        }
        guard !value.isEmpty else { throw MetadataProblem("\(key.rawValue) is empty") }
        return value
    }

    private static func url(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> URL? {
        guard let text = try string(key, in: container) else { return nil }
        guard text.utf8.count <= maximumURLLength else { throw MetadataProblem("\(key.rawValue) is too long") }
        guard let url = URL(string: text) else { throw MetadataProblem("\(key.rawValue) is not an absolute URL with a host") }
        if let problem = OAuth2Exchange.endpointProblem(url) {
            throw MetadataProblem("\(key.rawValue) \(problem)")
        }
        return url
    }

    private static func list(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> [String]? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        guard let values = try? container.decode([String].self, forKey: key) else {
            throw MetadataProblem("\(key.rawValue) is not an array of strings")
        }
        guard values.count <= maximumListCount else { throw MetadataProblem("\(key.rawValue) has too many entries") }
        return values
    }
}

/// Why a metadata document could not be read: the field and the problem, never a value.
struct MetadataProblem: Error, Equatable, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}

extension AuthorizationServerMetadata: CustomStringConvertible {
    /// The issuer and the endpoints it has, e.g.
    /// `AuthorizationServerMetadata(issuer: "https://auth.example.com", token, device_authorization, revocation)`.
    public var description: String {
        let endpoints: [(String, URL?)] = [
            ("authorization", authorizationEndpoint), ("token", tokenEndpoint),
            ("device_authorization", deviceAuthorizationEndpoint), ("revocation", revocationEndpoint),
        ]
        let present = endpoints.compactMap { $0.1 == nil ? nil : $0.0 }
        return "AuthorizationServerMetadata(issuer: \(issuer.debugDescription)\(present.map { ", \($0)" }.joined()))"
    }
}
