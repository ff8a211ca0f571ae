import Foundation
import Testing

@testable import Courier

/// `PinningPolicy` and its pins as values: parsing, host normalization, the check the transports
/// call, and what a failure says. The wire side is in `TLSIntegrationTests`.
@Suite("PinningPolicy")
struct PinningPolicyTests {
    static let keyA = Data("public key A".utf8)
    static let keyB = Data("public key B".utf8)
    static var pinA: PinningPolicy.Pin { PinningPolicy.Pin(publicKeyInfo: keyA) }
    static var pinB: PinningPolicy.Pin { PinningPolicy.Pin(publicKeyInfo: keyB) }

    // MARK: - Pins

    @Test func aPinParsesFromOpenSSLsBase64AndPrintsInTheHPKPForm() throws {
        let base64 = try TLSFixtures.pinBase64("server-ec")
        let pin = try PinningPolicy.Pin(sha256Base64: base64)
        #expect(pin.sha256.count == 32)
        #expect(pin.sha256.base64EncodedString() == base64)
        #expect(pin.description == "sha256/" + base64)
        #expect(pin == PinningPolicy.Pin(publicKeyInfo: try TLSFixtures.data("server-ec.spki.der")))
    }

    @Test(arguments: [
        "",
        "not base64!",
        Data(repeating: 1, count: 31).base64EncodedString(),
        Data(repeating: 1, count: 33).base64EncodedString(),
        Data(repeating: 1, count: 20).base64EncodedString(),  // a SHA-1 pin
        String(repeating: "ab", count: 32),  // the digest in hex
        "sha256/" + Data(repeating: 1, count: 32).base64EncodedString(),  // the printed form, prefix and all
        Data(repeating: 0xfb, count: 32).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_"),  // base64url
        " " + Data(repeating: 1, count: 32).base64EncodedString(),
        Data(repeating: 1, count: 32).base64EncodedString() + "\n",  // read from a file, newline and all
        String(Data(repeating: 1, count: 32).base64EncodedString().dropLast()),  // without its "=" padding
    ])
    func aPinThatIsNotBase64OfThirtyTwoBytesIsAnInvalidTLSConfiguration(_ text: String) {
        let error = #expect(throws: CourierError.self) { try PinningPolicy.Pin(sha256Base64: text) }
        guard case .invalidRequest(.invalidTLSConfiguration(let reason))? = error else {
            Issue.record("expected invalidTLSConfiguration, got \(String(describing: error))")
            return
        }
        #expect(reason.hasSuffix("got \"\(text.prefix(64))\""))
    }

    @Test func aVeryLongBadPinIsQuotedOnlyInPart() {
        let text = String(repeating: "x", count: 10_000)
        let error = #expect(throws: CourierError.self) { try PinningPolicy.Pin(sha256Base64: text) }
        guard case .invalidRequest(.invalidTLSConfiguration(let reason))? = error else {
            Issue.record("expected invalidTLSConfiguration")
            return
        }
        #expect(reason.count < 200)
    }

    // MARK: - Hosts

    @Test(arguments: [
        ("api.example.com", "api.example.com"),
        ("API.Example.COM", "api.example.com"),
        ("api.example.com.", "api.example.com"),
        ("API.EXAMPLE.COM.", "api.example.com"),
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("[2001:DB8::1]", "2001:db8::1"),
        ("127.0.0.1", "127.0.0.1"),
    ])
    func aHostIsPinnedUnderItsNormalizedName(_ written: String, normalized: String) {
        let policy = PinningPolicy([written: [Self.pinA]])
        #expect(Array(policy.pinsByHost.keys) == [normalized])
        #expect(policy.pins(for: normalized) == [Self.pinA])
        #expect(policy.pins(for: written) == [Self.pinA])
    }

    @Test func spellingsOfOneHostShareTheirPins() {
        let policy = PinningPolicy(["Example.com": [Self.pinA], "example.com.": [Self.pinB], "example.com": [Self.pinA]])
        #expect(policy.pinsByHost == ["example.com": [Self.pinA, Self.pinB]])
    }

    @Test func onlyTheNamedHostIsPinnedNotItsSubdomainsOrParents() {
        let policy = PinningPolicy(["api.example.com": [Self.pinA]])
        #expect(policy.pins(for: "v2.api.example.com") == nil)
        #expect(policy.pins(for: "example.com") == nil)
        #expect(policy.pins(for: "api.example.co") == nil)
        #expect(!policy.isEmpty)
        #expect(PinningPolicy.none.isEmpty)
        #expect(PinningPolicy([:]) == .none)
    }

    /// RFC 7469 `includeSubDomains`, as a `*.` name: every subdomain at any depth, never the
    /// apex; the exact name wins, then the nearest wildcard.
    @Test(
        arguments: [
            ("api.example.com", "*.example.com"),
            ("eu.api.example.com", "*.api.example.com"),
            ("a.b.c.example.com", "*.example.com"),
            ("API.Example.COM.", "*.example.com"),
            ("login.example.com", "login.example.com"),
            ("example.com", nil),
            ("example.com.evil", nil),
            ("notexample.com", nil),
            ("api.example.org", nil),
        ] as [(String, String?)])
    func aWildcardPinsEverySubdomainButNotItsApex(_ host: String, key: String?) {
        let policy = PinningPolicy([
            "*.example.com": [Self.pinA], "*.api.example.com": [Self.pinB], "login.example.com": [Self.pinB],
        ])
        #expect(policy.pinKey(for: host) == key)
        #expect(policy.pins(for: host) == key.flatMap { policy.pinsByHost[$0] })
    }

    @Test func aSubdomainOfAWildcardIsCheckedAgainstItsPins() throws {
        let policy = PinningPolicy(["*.example.com": [Self.pinA]])
        try policy.check(host: "api.example.com", publicKeyInfo: Self.keyA)
        #expect(throws: PinningFailure.self) { try policy.check(host: "api.example.com", publicKeyInfo: Self.keyB) }
        try policy.check(host: "example.com", publicKeyInfo: Self.keyB)  // the apex is not pinned
    }

    @Test func theDescriptionListsEveryHostAndPinSorted() {
        let policy = PinningPolicy(["b.example": [Self.pinB, Self.pinA], "a.example": [Self.pinA], "c.example": []])
        let pins = [Self.pinA.description, Self.pinB.description].sorted().joined(separator: ", ")
        #expect(policy.description == "PinningPolicy(a.example: \(Self.pinA); b.example: \(pins); c.example: (no pins))")
    }

    // MARK: - The check

    @Test func aKeyMatchingAnyOfItsHostsPinsPasses() throws {
        let policy = PinningPolicy(["api.example.com": [Self.pinA, Self.pinB]])
        try policy.check(host: "api.example.com", publicKeyInfo: Self.keyA)
        try policy.check(host: "API.example.com.", publicKeyInfo: Self.keyB)
    }

    @Test func anUnpinnedHostPassesWhateverItPresents() throws {
        let policy = PinningPolicy(["api.example.com": [Self.pinA]])
        try policy.check(host: "other.example.com", publicKeyInfo: Self.keyB)
        try policy.check(host: "other.example.com", publicKeyInfo: nil)
    }

    @Test func aKeyMatchingNoPinFailsNamingTheHostTheKeyAndThePins() {
        let policy = PinningPolicy(["API.example.com": [Self.pinA]])
        let failure = #expect(throws: PinningFailure.self) { try policy.check(host: "api.EXAMPLE.com.", publicKeyInfo: Self.keyB) }
        #expect(failure == PinningFailure(host: "api.example.com", presented: Self.pinB, pins: [Self.pinA], reason: nil))
        #expect(failure?.message == "api.example.com presented \(Self.pinB), which matches none of its pins: \(Self.pinA)")
        let transport = failure?.transportFailure(url: URL(string: "https://api.example.com/v1"))
        #expect(transport?.kind == .pinningFailed)
        #expect(transport?.url?.absoluteString == "https://api.example.com/v1")
        #expect(transport?.message == failure?.message)
    }

    @Test func noKeyAtAllFailsAPinnedHost() {
        let policy = PinningPolicy(["api.example.com": [Self.pinA]])
        let failure = #expect(throws: PinningFailure.self) { try policy.check(host: "api.example.com", publicKeyInfo: nil) }
        #expect(failure?.presented == nil)
        #expect(failure?.message == "api.example.com is pinned (\(Self.pinA)), but no server public key could be read")
    }

    @Test func aHostPinnedToNothingCanNeverBeReached() {
        let policy = PinningPolicy(["api.example.com": []])
        #expect(policy.pins(for: "api.example.com") == [])
        let failure = #expect(throws: PinningFailure.self) { try policy.check(host: "api.example.com", publicKeyInfo: Self.keyA) }
        #expect(failure?.message.hasSuffix("matches none of its pins: (no pins)") == true)
    }
}
