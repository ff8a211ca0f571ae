import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

/// One redirect and the failure it must give.
struct AuthorizationRedirectCase: Sendable, CustomTestStringConvertible {
    var name: String
    var redirect: String
    var expected: AuthorizationFailure
    var testDescription: String { name }
}

@Suite("Authorization code flow: reading the redirect (state, error, iss, code)")
struct AuthorizationCodeResponseTests {
    static let base = "http://127.0.0.1:53682/callback"
    static let goodState = "state=af0ifjsldkj-STATE"

    @Test("a good redirect gives its code, form-decoded; extra parameters and a fragment are ignored")
    func goodRedirect() throws {
        let flow = try AuthorizationCodeFixtures.flow()
        #expect(try flow.authorizationCode(from: URL(string: "\(Self.base)?code=Splx%2BlOB+eZ&\(Self.goodState)")!) == "Splx+lOB eZ")
        #expect(try flow.authorizationCode(from: URL(string: "\(Self.base)?\(Self.goodState)&session_state=x&code=c#code=other")!) == "c")
        #expect(try flow.authorizationCode(from: URL(string: "HTTP://127.0.0.1:53682/callback?code=c&\(Self.goodState)")!) == "c")
    }

    static let stateCases = [
        AuthorizationRedirectCase(name: "no state", redirect: "\(base)?code=c", expected: .stateMismatch),
        AuthorizationRedirectCase(name: "another state", redirect: "\(base)?code=c&state=af0ifjsldkj-STATF", expected: .stateMismatch),
        AuthorizationRedirectCase(name: "an empty state", redirect: "\(base)?code=c&state=", expected: .stateMismatch),
        AuthorizationRedirectCase(name: "a state prefix", redirect: "\(base)?code=c&state=af0ifjsldkj", expected: .stateMismatch),
        AuthorizationRedirectCase(
            name: "a forged error without state", redirect: "\(base)?error=access_denied&error_description=Call%20us", expected: .stateMismatch),
        AuthorizationRedirectCase(
            name: "a forged error with a wrong state", redirect: "\(base)?error=server_error&state=guess", expected: .stateMismatch),
        AuthorizationRedirectCase(name: "code and state in the fragment only", redirect: "\(base)#code=c&\(goodState)", expected: .stateMismatch),
        AuthorizationRedirectCase(
            name: "a forged issuer with a wrong state", redirect: "\(base)?code=c&iss=https%3A%2F%2Fevil&state=x", expected: .stateMismatch),
    ]

    @Test("state is checked before anything the response says: missing or different is stateMismatch", arguments: stateCases)
    func stateMismatch(testCase: AuthorizationRedirectCase) throws {
        let flow = try AuthorizationCodeFixtures.flow(issuer: "https://auth.example.com", requiresIssuer: true)
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in try flow.authorizationCode(from: URL(string: testCase.redirect)!) }
        #expect(AuthorizationCodeFixtures.failure(error) == testCase.expected)
    }

    @Test("an error response with the right state is denied, with error, error_description and error_uri")
    func denied() throws {
        let flow = try AuthorizationCodeFixtures.flow()
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try flow.authorizationCode(
                from: URL(string: "\(Self.base)?error=access_denied&error_description=The+user+said+no&error_uri=https%3A%2F%2Fdocs.example&\(Self.goodState)")!
            )
        }
        #expect(
            AuthorizationCodeFixtures.failure(error)
                == .denied(OAuth2Error(code: "access_denied", errorDescription: "The user said no", errorURI: "https://docs.example")))
        // An error wins over a code that came with it.
        let withCode = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try flow.authorizationCode(from: URL(string: "\(Self.base)?code=c&error=server_error&\(Self.goodState)")!)
        }
        #expect(AuthorizationCodeFixtures.failure(withCode) == .denied(OAuth2Error(code: "server_error")))
    }

    static let issuerCases: [(issuer: String?, requires: Bool, iss: String?, expected: AuthorizationFailure?)] = [
        ("https://auth.example.com", false, "https://auth.example.com", nil),
        ("https://auth.example.com", true, "https://auth.example.com", nil),
        ("https://auth.example.com", false, nil, nil),
        ("https://auth.example.com", true, nil, .issuerMismatch(expected: "https://auth.example.com", received: nil)),
        ("https://auth.example.com", false, "https://evil.example", .issuerMismatch(expected: "https://auth.example.com", received: "https://evil.example")),
        (
            "https://auth.example.com", false, "https://auth.example.com/",
            .issuerMismatch(expected: "https://auth.example.com", received: "https://auth.example.com/")
        ),
        (
            "https://auth.example.com", false, "HTTPS://AUTH.EXAMPLE.COM",
            .issuerMismatch(expected: "https://auth.example.com", received: "HTTPS://AUTH.EXAMPLE.COM")
        ),
        (nil, false, "https://anything.example", nil),
    ]

    @Test("iss (RFC 9207) is compared exactly with the issuer, required when asked, and ignored without an issuer", arguments: issuerCases)
    func issuer(testCase: (issuer: String?, requires: Bool, iss: String?, expected: AuthorizationFailure?)) throws {
        let flow = try AuthorizationCodeFixtures.flow(issuer: testCase.issuer, requiresIssuer: testCase.requires)
        let iss = testCase.iss.map { "&iss=" + PercentEncoding.encode($0) } ?? ""
        let redirect = URL(string: "\(Self.base)?code=c&\(Self.goodState)\(iss)")!
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in try flow.authorizationCode(from: redirect) }
        #expect(AuthorizationCodeFixtures.failure(error) == testCase.expected)
        if testCase.expected == nil { #expect(error == nil) }
    }

    @Test("an error response is denied even when iss is missing but required: the denial is the server's answer")
    func deniedBeforeIssuer() throws {
        let flow = try AuthorizationCodeFixtures.flow(issuer: "https://auth.example.com", requiresIssuer: true)
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try flow.authorizationCode(from: URL(string: "\(Self.base)?error=access_denied&\(Self.goodState)")!)
        }
        #expect(AuthorizationCodeFixtures.failure(error) == .denied(OAuth2Error(code: "access_denied")))
    }

    static let malformedCases = [
        ("no code", "\(base)?\(goodState)"),
        ("an empty code", "\(base)?code=&\(goodState)"),
        ("a bare code name", "\(base)?code&\(goodState)"),
        ("two codes", "\(base)?code=a&code=b&\(goodState)"),
        ("two states", "\(base)?code=a&\(goodState)&\(goodState)"),
        ("two states, one forged", "\(base)?code=a&state=x&\(goodState)"),
        ("two errors", "\(base)?error=a&error=b&\(goodState)"),
        ("two issuers", "\(base)?code=a&iss=x&iss=x&\(goodState)"),
        ("an empty error", "\(base)?error=&\(goodState)"),
        ("invalid UTF-8", "\(base)?code=%C3%28&\(goodState)"),
        ("another path", "http://127.0.0.1:53682/callback2?code=c&\(goodState)"),
        ("a path with a trailing slash", "http://127.0.0.1:53682/callback/?code=c&\(goodState)"),
        ("another port", "http://127.0.0.1:53683/callback?code=c&\(goodState)"),
        ("another host", "http://localhost:53682/callback?code=c&\(goodState)"),
        ("another scheme", "https://127.0.0.1:53682/callback?code=c&\(goodState)"),
        ("over 8 KiB", "\(base)?code=c&\(goodState)&pad=" + String(repeating: "a", count: 8192)),
    ]

    @Test("a redirect that is not a well-formed response is malformedResponse", arguments: malformedCases)
    func malformed(name: String, redirect: String) throws {
        let flow = try AuthorizationCodeFixtures.flow()
        let url = try #require(URL(string: redirect), "\(name)")
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in try flow.authorizationCode(from: url) }
        guard case .malformedResponse(let why)? = AuthorizationCodeFixtures.failure(error) else {
            Issue.record("\(name): expected malformedResponse, got \(String(describing: error))")
            return
        }
        #expect(!why.contains("af0ifjsldkj"), "the failure never quotes the redirect's values")
    }

    @Test(
        "a query that is not form encoding is malformed (Foundation's URL(string:) may already escape a stray %)",
        arguments: ["code=%zz", "code=a%2", "code=%", "a%ZZ=1", "code=%C3%28", "code=%FF", "code=%ED%A0%80"])
    func badEncoding(query: String) {
        #expect(throws: AuthorizationFailure.self) { try AuthorizationResponse.parseQuery(query) }
    }

    @Test("form decoding: + is a space, %2B a plus, empty pieces are skipped, a bare name has an empty value")
    func formDecoding() throws {
        let pairs = try AuthorizationResponse.parseQuery("a=b+c&&d=%2B%20&flag&=x&e=f=g")
        #expect(pairs.map(\.name) == ["a", "d", "flag", "", "e"])
        #expect(pairs.map(\.value) == ["b c", "+ ", "", "x", "f=g"])
    }

    @Test("a redirect of exactly 8 KiB is read; one byte more is not")
    func sizeLimit() throws {
        let flow = try AuthorizationCodeFixtures.flow()
        let prefix = "\(Self.base)?code=c&\(Self.goodState)&pad="
        let fits = URL(string: prefix + String(repeating: "a", count: 8192 - prefix.utf8.count))!
        #expect(try flow.authorizationCode(from: fits) == "c")
        let over = URL(string: prefix + String(repeating: "a", count: 8193 - prefix.utf8.count))!
        #expect(AuthorizationCodeFixtures.failure(AuthorizationCodeFixtures.error { () throws(CourierError) in try flow.authorizationCode(from: over) }) != nil)
    }

    @Test("private-use scheme and https redirect URIs are matched by scheme, host, port and path")
    func otherRedirectURIs() throws {
        let custom = try AuthorizationCodeFixtures.flow(redirectURI: URL(string: "com.example.app:/oauth/callback")!)
        #expect(try custom.authorizationCode(from: URL(string: "com.example.app:/oauth/callback?code=c&\(Self.goodState)")!) == "c")
        #expect(try custom.authorizationCode(from: URL(string: "COM.EXAMPLE.APP:/oauth/callback?code=c&\(Self.goodState)")!) == "c")
        #expect(throws: CourierError.self) { try custom.authorizationCode(from: URL(string: "com.evil.app:/oauth/callback?code=c&\(Self.goodState)")!) }
        let https = try AuthorizationCodeFixtures.flow(redirectURI: URL(string: "https://app.example.com/cb")!)
        #expect(try https.authorizationCode(from: URL(string: "https://app.example.com:443/cb?code=c&\(Self.goodState)")!) == "c")
        #expect(throws: CourierError.self) { try https.authorizationCode(from: URL(string: "https://app.example.com.evil/cb?code=c&\(Self.goodState)")!) }
    }

    @Test("failures never show the code or the state in their descriptions")
    func failureDescriptions() throws {
        let flow = try AuthorizationCodeFixtures.flow(issuer: "https://auth.example.com", requiresIssuer: true)
        for redirect in [
            "\(Self.base)?code=SECRETCODE&state=SECRETSTATE", "\(Self.base)?code=SECRETCODE&\(Self.goodState)", "\(Self.base)?code=SECRETCODE&code=SECRETCODE",
        ] {
            let error = try #require(AuthorizationCodeFixtures.error { () throws(CourierError) in try flow.authorizationCode(from: URL(string: redirect)!) })
            var dumped = ""
            dump(error, to: &dumped)
            for text in ["\(error)", String(reflecting: error), dumped, error.localizedDescription] {
                #expect(!text.contains("SECRET"))
                #expect(!text.contains("af0ifjsldkj"))
            }
        }
    }
}
