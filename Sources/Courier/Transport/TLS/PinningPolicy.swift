public import Foundation

/// Which public keys a server may present: SPKI SHA-256 pins per host (RFC 7469 style),
/// checked by the transport on every new TLS connection before any request is written to it.
///
/// A pinned host's connections succeed only when the server's certificate carries one of the
/// host's keys, **in addition to** the usual validation; hosts the policy does not name are not
/// pinned. A mismatch fails the call with ``CourierError/transport(_:)`` of kind
/// ``TransportFailure/Kind/pinningFailed`` and nothing is sent. Give every host a backup pin.
/// Documentation/Transports.md says how to compute a pin and which keys each transport sees.
///
/// ```swift
/// let pinning = PinningPolicy(["api.example.com": [
///     try .init(sha256Base64: "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="),  // current key
///     try .init(sha256Base64: "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="),  // backup key
/// ]])
/// ```
public struct PinningPolicy: Sendable, Hashable, CustomStringConvertible {
    // A pin is the SHA-256 of a certificate's DER-encoded SubjectPublicKeyInfo, the value
    // `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    // prints. A pin never makes an untrusted certificate trusted. With one pin, a lost or
    // compromised key locks an app out of its own server. What a pin may name depends on what the
    // platform hands over: on Apple platforms (URLSessionTransport) the system's validated chain, so
    // a pin may be the leaf's key, an intermediate's or the root's; AsyncHTTPClientTransport sees the
    // leaf only. corelibs URLSession on Linux raises no server-trust challenge, so a
    // URLSessionTransport there refuses to send anything to a pinned host rather than send it
    // unpinned.

    /// One acceptable public key: the SHA-256 of its DER-encoded SubjectPublicKeyInfo.
    public struct Pin: Sendable, Hashable, CustomStringConvertible {
        /// The 32-byte digest.
        package let sha256: Data

        /// A pin from its base64 form (the `pin-sha256` value of RFC 7469).
        /// - Throws: ``CourierError/invalidRequest(_:)`` (``InvalidRequest/invalidTLSConfiguration(_:)``)
        ///   when `base64` is not base64 of exactly 32 bytes.
        public init(sha256Base64 base64: String) throws(CourierError) {
            guard let digest = Data(base64Encoded: base64), digest.count == 32 else {
                throw .invalidRequest(.invalidTLSConfiguration("a pin is base64 of a 32-byte SHA-256 digest; got \"\(base64.prefix(64))\""))
            }
            sha256 = digest
        }

        /// The pin of a public key, from its DER-encoded SubjectPublicKeyInfo.
        public init(publicKeyInfo: Data) {
            sha256 = Data(SHA256.hash(publicKeyInfo))
        }

        /// `sha256/<base64>`, the form HPKP reports and most tools print.
        public var description: String { "sha256/" + sha256.base64EncodedString() }
    }

    /// The pins of each pinned host, keyed by normalized host name (lowercase, no trailing dot,
    /// IPv6 addresses without brackets).
    let pinsByHost: [String: Set<Pin>]

    /// A policy pinning each named host to its keys.
    ///
    /// A host name is matched exactly (case and a trailing dot aside). A name starting with `*.`
    /// pins every subdomain of what follows, at any depth (RFC 7469's `includeSubDomains`):
    /// `"*.example.com"` covers `api.example.com` and `eu.api.example.com`, not `example.com`
    /// itself (name it too if it should be pinned). An exact name wins over a wildcard, and a
    /// longer wildcard over a shorter one. A host given an empty list can never be reached,
    /// which is the safe reading of a configuration mistake.
    ///
    /// ```swift
    /// let pinning = PinningPolicy([
    ///     "example.com": [current, backup],
    ///     "*.example.com": [current, backup],
    /// ])
    /// ```
    public init(_ pinsByHost: [String: [Pin]]) {
        var normalized: [String: Set<Pin>] = [:]
        for (host, pins) in pinsByHost {
            normalized[Self.normalized(host), default: []].formUnion(pins)
        }
        self.pinsByHost = normalized
    }

    /// No host is pinned.
    public static let none = PinningPolicy([:])

    /// Whether no host is pinned.
    package var isEmpty: Bool { pinsByHost.isEmpty }

    /// The pins of `host`, or `nil` when it is not pinned: those of its exact name, else of the
    /// nearest `*.` wildcard above it.
    package func pins(for host: String) -> Set<Pin>? {
        pinKey(for: host).flatMap { pinsByHost[$0] }
    }

    /// The key of ``pinsByHost`` that pins `host` (its normalized name, or the nearest wildcard
    /// above it), or `nil` when it is not pinned.
    func pinKey(for host: String) -> String? {
        let host = Self.normalized(host)
        if pinsByHost[host] != nil { return host }
        // eu.api.example.com → *.api.example.com → *.example.com → *.com
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            guard !rest.isEmpty else { break }
            let wildcard = "*." + rest
            if pinsByHost[wildcard] != nil { return wildcard }
        }
        return nil
    }

    /// Each pinned host and its pins, sorted: pins are public values, safe to log.
    public var description: String {
        let hosts = pinsByHost.keys.sorted().map { host in
            "\(host): \(Self.list(pinsByHost[host] ?? []))"
        }
        return "PinningPolicy(\(hosts.joined(separator: "; ")))"
    }

    /// Checks the key a server presented for `host`.
    /// - Throws: ``PinningFailure`` when `host` is pinned and `publicKeyInfo` matches none of its
    ///   pins, or no key could be read (`publicKeyInfo` is `nil`).
    func check(host: String, publicKeyInfo: Data?) throws(PinningFailure) {
        guard let pins = pins(for: host) else { return }
        guard let publicKeyInfo else {
            throw PinningFailure(host: Self.normalized(host), presented: nil, pins: pins, reason: "no server public key could be read")
        }
        let presented = Pin(publicKeyInfo: publicKeyInfo)
        if !pins.contains(presented) {
            throw PinningFailure(host: Self.normalized(host), presented: presented, pins: pins, reason: nil)
        }
    }

    /// Checks the keys of a validated certificate chain (leaf first) that a server presented
    /// for `host`: a pin may name any key of the chain (the leaf's, an intermediate's or the
    /// root's), as on Apple platforms, where the system hands over the chain it validated.
    /// `nil` stands for a key that could not be read.
    /// - Throws: ``PinningFailure`` naming the leaf's key when `host` is pinned and no key of the
    ///   chain matches one of its pins.
    func check(host: String, chain: [Data?]) throws(PinningFailure) {
        guard let pins = pins(for: host) else { return }
        if chain.contains(where: { key in key.map { pins.contains(Pin(publicKeyInfo: $0)) } ?? false }) { return }
        try check(host: host, publicKeyInfo: chain.first ?? nil)
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    static func list(_ pins: Set<Pin>) -> String {
        pins.isEmpty ? "(no pins)" : pins.map(\.description).sorted().joined(separator: ", ")
    }
}

/// A pinned host whose connection failed the pin check; becomes a ``TransportFailure`` of kind
/// ``TransportFailure/Kind/pinningFailed`` once the transport knows the request's URL.
struct PinningFailure: Error, Sendable, Equatable {
    let host: String
    let presented: PinningPolicy.Pin?
    let pins: Set<PinningPolicy.Pin>
    /// Why no key was compared, when none was.
    let reason: String?

    /// `<host> presented sha256/…, which matches none of its pins: sha256/…, …` when a key was
    /// compared, else `<host> is pinned (sha256/…, …), but <reason>`.
    var message: String {
        let list = PinningPolicy.list(pins)
        guard let presented else { return "\(host) is pinned (\(list)), but \(reason ?? "it presented no key")" }
        return "\(host) presented \(presented), which matches none of its pins: \(list)"
    }

    func transportFailure(url: URL?) -> TransportFailure {
        TransportFailure(kind: .pinningFailed, url: url, message: message)
    }
}

/// DER SubjectPublicKeyInfo from the raw key bytes Apple's `SecKeyCopyExternalRepresentation`
/// returns (PKCS #1 `RSAPublicKey` for RSA, an uncompressed X9.63 point for elliptic curves),
/// for pinning in ``URLSessionTransport`` on Apple platforms; compiled and tested everywhere.
enum SubjectPublicKeyInfo {
    /// The kind of key, as the Security framework reports it.
    enum Algorithm {
        case rsa
        case ellipticCurve
    }

    /// The SPKI, or `nil` for a key it cannot express (an unknown curve size).
    static func der(rawKey: Data, algorithm: Algorithm) -> Data? {
        let identifier: [UInt8]
        switch algorithm {
        case .rsa:
            // rsaEncryption (1.2.840.113549.1.1.1), NULL parameters.
            identifier = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]
        case .ellipticCurve:
            // id-ecPublicKey (1.2.840.10045.2.1) and the named curve, told apart by the point's
            // size: 1 + 2 × the field size in bytes.
            let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]
            switch rawKey.count {
            case 65: identifier = ecPublicKey + [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]  // P-256
            case 97: identifier = ecPublicKey + [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]  // P-384
            case 133: identifier = ecPublicKey + [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23]  // P-521
            default: return nil
            }
        }
        let algorithmIdentifier = derElement(tag: 0x30, identifier)
        let bitString = derElement(tag: 0x03, [0x00] + [UInt8](rawKey))  // no unused bits
        return Data(derElement(tag: 0x30, algorithmIdentifier + bitString))
    }

    /// A DER tag-length-value (definite length, short or long form).
    private static func derElement(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var remaining = content.count
            length = []
            while remaining > 0 {
                length.insert(UInt8(remaining & 0xff), at: 0)
                remaining >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }
}
