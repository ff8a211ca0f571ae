package import Foundation

/// A successful token response (RFC 6749 §5.1), read leniently where real servers differ from
/// the RFC and strictly where a mistake would put a bad value into an `Authorization` header.
///
/// - `access_token`: a non-empty string, without control characters (it goes into a header).
/// - `token_type`: a non-empty RFC 9110 token (it is the header's authentication scheme).
/// - `refresh_token`: optional; `null` or `""` count as absent.
/// - `expires_in`: optional; an integer, a decimal, or a string holding either (`"3600"`);
///   `null` counts as absent; negative, non-finite or non-numeric values are errors.
/// - `scope`: optional; a string, or an array of strings (joined with spaces); `null`, `""`,
///   whitespace and arrays of empty strings count as absent, and runs of spaces become one.
///
/// Failures throw ``OAuth2MalformedResponse`` naming the field and the problem; a value is
/// never quoted, so a token can never end up in an error message or a log.
struct OAuth2TokenResponse: Decodable, Equatable {
    var accessToken: String
    var tokenType: String
    var refreshToken: String?
    var expiresIn: TimeInterval?
    var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case scope
    }

    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch {
            throw OAuth2MalformedResponse("the body is not a JSON object")
        }

        accessToken = try Self.requiredString(.accessToken, in: container)
        guard HeaderItem.isValidValue(accessToken) else {
            throw OAuth2MalformedResponse("access_token contains control characters, which cannot be sent in a header")
        }
        tokenType = try Self.requiredString(.tokenType, in: container)
        guard HTTPToken.isValid(tokenType) else {
            throw OAuth2MalformedResponse("token_type is not a valid authentication scheme (an RFC 9110 token)")
        }
        refreshToken = try Self.optionalString(.refreshToken, in: container)
        expiresIn = try Self.seconds(.expiresIn, in: container)
        scope = try Self.scope(in: container)
    }

    /// Decodes `data`, or says why it is not a token response.
    package static func parse(_ data: Data) -> Result<OAuth2TokenResponse, OAuth2MalformedResponse> {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        if body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return .failure(OAuth2MalformedResponse("the body is empty"))
        }
        do {
            return .success(try JSONDecoder().decode(OAuth2TokenResponse.self, from: body))
        } catch let malformed as OAuth2MalformedResponse {
            return .failure(malformed)
        } catch {
            return .failure(OAuth2MalformedResponse("the body is not valid JSON (or is truncated)"))
        }
    }

    private static func requiredString(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> String {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else {
            throw OAuth2MalformedResponse.missing(key)
        }
        guard let value = try? container.decode(String.self, forKey: key) else {
            throw OAuth2MalformedResponse("\(key.rawValue) is not a string")
        }
        guard !value.isEmpty else {
            throw OAuth2MalformedResponse("\(key.rawValue) is empty")
        }
        return value
    }

    private static func optionalString(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> String? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        guard let value = try? container.decode(String.self, forKey: key) else {
            throw OAuth2MalformedResponse("\(key.rawValue) is not a string")
        }
        return value.isEmpty ? nil : value
    }

    private static func seconds(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> TimeInterval? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        let value: Double
        if let number = try? container.decode(Double.self, forKey: key) {
            value = number
        } else if let text = try? container.decode(String.self, forKey: key),
            let number = Double(text.trimmingCharacters(in: .whitespaces))
        {
            value = number
        } else {
            throw OAuth2MalformedResponse("\(key.rawValue) is not a number")
        }
        guard value.isFinite else {
            throw OAuth2MalformedResponse("\(key.rawValue) is not a finite number")
        }
        guard value >= 0 else {
            throw OAuth2MalformedResponse("\(key.rawValue) is negative")
        }
        return value
    }

    private static func scope(in container: KeyedDecodingContainer<CodingKeys>) throws -> String? {
        guard container.contains(.scope), !((try? container.decodeNil(forKey: .scope)) ?? false) else { return nil }
        if let text = try? container.decode(String.self, forKey: .scope) {
            return normalizedScope([text])
        }
        if let list = try? container.decode([String].self, forKey: .scope) {
            return normalizedScope(list)
        }
        throw OAuth2MalformedResponse("scope is neither a string nor an array of strings")
    }

    /// The scope tokens (RFC 6749 §3.3: space-delimited, never empty) joined by single spaces,
    /// or nil when there are none: `"  "`, `[""]` and `["", " "]` all mean "no scope", and
    /// `["read", "", "write"]` means `"read write"`.
    private static func normalizedScope(_ parts: [String]) -> String? {
        let tokens = parts.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) }
        return tokens.isEmpty ? nil : tokens.joined(separator: " ")
    }
}

/// Why a 2xx token response could not be read: the field and the problem, never a value.
package struct OAuth2MalformedResponse: Error, Equatable {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    /// A required field is absent or `null`.
    static func missing(_ key: OAuth2TokenResponse.CodingKeys) -> OAuth2MalformedResponse {
        OAuth2MalformedResponse("\(key.rawValue) is missing")
    }
}

extension OAuth2Error {
    /// Reads an RFC 6749 §5.2 error body leniently: a JSON object with a string `error` is
    /// enough; `error_description` and `error_uri` are kept when they are strings and ignored
    /// otherwise. `nil` when the body is not such an object.
    ///
    /// A hostile server's text is bounded (the code to 128 characters, the description and the
    /// URI to 512) and every value of `secrets` in it (what the request sent: a password, a
    /// refresh token, the client secret) is replaced by `<redacted>`, so an error that echoes
    /// them is never printed with them.
    package static func lenientlyParsing(_ data: Data, secrets: [String] = []) -> OAuth2Error? {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        guard let error = (try? JSONDecoder().decode(LenientBody.self, from: body))?.error else { return nil }
        // Longer secrets first, so that one inside another is not left half-replaced.
        let secrets = secrets.map { Array($0.utf8) }.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        func clean(_ text: String, limit: Int) -> String {
            let text = Redaction.replacing(secrets, in: text)
            // Again after the cut: its `…` could end a secret.
            return text.count > limit ? Redaction.replacing(secrets, in: String(text.prefix(limit)) + "…") : text
        }
        return OAuth2Error(
            code: clean(error.code, limit: 128),
            errorDescription: error.errorDescription.map { clean($0, limit: 512) },
            errorURI: error.errorURI.map { clean($0, limit: 512) })
    }

    private struct LenientBody: Decodable {
        var error: OAuth2Error?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: OAuth2Error.CodingKeys.self)
            guard let code = try? container.decode(String.self, forKey: .code), !code.isEmpty else {
                error = nil
                return
            }
            error = OAuth2Error(
                code: code,
                errorDescription: try? container.decode(String.self, forKey: .errorDescription),
                errorURI: try? container.decode(String.self, forKey: .errorURI)
            )
        }
    }
}
