import Courier
import Foundation

/// A successful device authorization response (RFC 8628 §3.2), read with limits: every value
/// here is shown to a person or sent back to the server, so nothing unbounded or unprintable
/// gets through. A failure names the field and the problem, never a value.
struct DeviceAuthorizationResponse: Decodable, Equatable {
    // The limits:
    // - `device_code`: a non-empty string of at most 4096 UTF-8 bytes (sent back in every poll).
    // - `user_code`: a non-empty string of at most 256 UTF-8 bytes without control characters (it
    //   is printed on a terminal or screen; an escape sequence there could rewrite what the user
    //   sees).
    // - `verification_uri`: an `https` URL (plain `http` only on a loopback host) of at most 2048
    //   bytes. Google's non-standard `verification_url` is read when `verification_uri` is absent.
    // - `verification_uri_complete`: optional, the same rules (also read as
    //   `verification_url_complete`).
    // - `expires_in`: required; a number or a string holding one, greater than 0 and at most 86400
    //   (one day: device codes live minutes; a larger value is a broken server).
    // - `interval`: optional (5 s when absent or `null`); a number or numeric string from 0 to 3600;
    //   raised to 1 s when smaller, so a server cannot make the client poll in a tight loop.
    // Failure messages come from a fixed list, so a device code cannot end up in an error message
    // or a log.

    static let maximumDeviceCodeLength = 4096
    static let maximumUserCodeLength = 256
    static let maximumURILength = 2048
    static let maximumExpiresIn: Double = 86_400
    static let maximumInterval: Double = 3_600
    static let defaultInterval: Duration = .seconds(5)
    static let minimumInterval: Duration = .seconds(1)

    var deviceCode: String
    var userCode: String
    var verificationURI: URL
    var verificationURIComplete: URL?
    var expiresIn: Duration
    var interval: Duration

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURL = "verification_url"
        case verificationURIComplete = "verification_uri_complete"
        case verificationURLComplete = "verification_url_complete"
        case expiresIn = "expires_in"
        case interval
    }

    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch {
            throw OAuth2MalformedResponse("the body is not a JSON object")
        }
        guard let deviceCode = try Self.string(.deviceCode, in: container) else {
            throw OAuth2MalformedResponse("device_code is missing")
        }
        guard deviceCode.utf8.count <= Self.maximumDeviceCodeLength else {
            throw OAuth2MalformedResponse("device_code is too long")
        }
        self.deviceCode = deviceCode

        guard let userCode = try Self.string(.userCode, in: container) else {
            throw OAuth2MalformedResponse("user_code is missing")
        }
        guard userCode.utf8.count <= Self.maximumUserCodeLength else {
            throw OAuth2MalformedResponse("user_code is too long")
        }
        guard !userCode.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw OAuth2MalformedResponse("user_code contains control characters")
        }
        self.userCode = userCode

        guard let verificationURI = try Self.url(.verificationURI, alias: .verificationURL, in: container) else {
            throw OAuth2MalformedResponse("verification_uri is missing")
        }
        self.verificationURI = verificationURI
        verificationURIComplete = try Self.url(.verificationURIComplete, alias: .verificationURLComplete, in: container)

        guard let expiresIn = try Self.seconds(.expiresIn, in: container) else {
            throw OAuth2MalformedResponse("expires_in is missing")
        }
        guard expiresIn > 0 else { throw OAuth2MalformedResponse("expires_in is not positive") }
        guard expiresIn <= Self.maximumExpiresIn else { throw OAuth2MalformedResponse("expires_in is too large") }
        // Rounded up: a positive lifetime under a millisecond must not become zero (found by
        // FuzzDeviceAuthorizationResponse: "000000.000585658004").
        self.expiresIn = .milliseconds(Int64((expiresIn * 1000).rounded(.up)))

        if let interval = try Self.seconds(.interval, in: container) {
            guard interval <= Self.maximumInterval else { throw OAuth2MalformedResponse("interval is too large") }
            self.interval = max(Self.minimumInterval, .milliseconds(Int64((interval * 1000).rounded(.up))))
        } else {
            interval = Self.defaultInterval
        }
    }

    /// Decodes `data`, or says why it is not a device authorization response.
    static func parse(_ data: Data) -> Result<DeviceAuthorizationResponse, OAuth2MalformedResponse> {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        if body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return .failure(OAuth2MalformedResponse("the body is empty"))
        }
        do {
            return .success(try JSONDecoder().decode(DeviceAuthorizationResponse.self, from: body))
        } catch let malformed as OAuth2MalformedResponse {
            return .failure(malformed)
        } catch {
            return .failure(OAuth2MalformedResponse("the body is not valid JSON (or is truncated)"))
        }
    }

    /// Every reason ``parse(_:)`` may give (the fuzz target checks each failure against it).
    static let reasons: Set<String> = {
        var reasons: Set<String> = [
            "the body is empty", "the body is not a JSON object", "the body is not valid JSON (or is truncated)",
            "device_code is too long", "user_code is too long", "user_code contains control characters",
            "expires_in is not positive", "expires_in is too large", "interval is too large",
        ]
        for key in CodingKeys.allNames {
            for problem in [
                "is missing", "is not a string", "is empty", "is not a number", "is not a finite number", "is negative",
                "is too long", "is not an absolute URL with a host", "has user-info", "has a fragment",
                "is not https (plain http is allowed only for loopback hosts)", "is not https",
            ] {
                reasons.insert("\(key) \(problem)")
            }
        }
        return reasons
    }()

    /// A non-empty string, `nil` when absent or `null`.
    private static func string(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> String? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        guard let value = try? container.decode(String.self, forKey: key) else {
            throw OAuth2MalformedResponse("\(key.rawValue) is not a string")
        }
        guard !value.isEmpty else { throw OAuth2MalformedResponse("\(key.rawValue) is empty") }
        return value
    }

    /// An endpoint-grade URL under `key`, or under `alias` when `key` is absent.
    private static func url(
        _ key: CodingKeys, alias: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> URL? {
        let present = container.contains(key) && !((try? container.decodeNil(forKey: key)) ?? false)
        let used = present ? key : alias
        guard let text = try string(used, in: container) else { return nil }
        guard text.utf8.count <= maximumURILength else { throw OAuth2MalformedResponse("\(used.rawValue) is too long") }
        guard let url = URL(string: text) else {
            throw OAuth2MalformedResponse("\(used.rawValue) is not an absolute URL with a host")
        }
        if let problem = OAuth2Exchange.endpointProblem(url) {
            throw OAuth2MalformedResponse("\(used.rawValue) \(problem)")
        }
        return url
    }

    /// A number of seconds: a JSON number or a string holding one; finite and not negative.
    private static func seconds(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> Double? {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return nil }
        let value: Double
        if let number = try? container.decode(Double.self, forKey: key) {
            value = number
        } else if let text = try? container.decode(String.self, forKey: key), text.utf8.count <= 32,
            let number = Double(text.trimmingCharacters(in: .whitespaces))
        {
            value = number
        } else {
            throw OAuth2MalformedResponse("\(key.rawValue) is not a number")
        }
        guard value.isFinite else { throw OAuth2MalformedResponse("\(key.rawValue) is not a finite number") }
        guard value >= 0 else { throw OAuth2MalformedResponse("\(key.rawValue) is negative") }
        return value
    }
}

extension DeviceAuthorizationResponse.CodingKeys {
    static let allNames = [
        "device_code", "user_code", "verification_uri", "verification_url", "verification_uri_complete",
        "verification_url_complete", "expires_in", "interval",
    ]
}
