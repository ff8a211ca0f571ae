// Apple platforms only: the server-trust side of pinning for URLSessionTransport. Kept thin:
// the SPKI encoding and the pin check it calls are shared code, compiled and tested on Linux.
#if canImport(Security) && !canImport(FoundationNetworking)
    import Foundation
    import Security

    extension PinningPolicy {
        /// What the server-trust challenge gets.
        enum TrustDecision {
            /// Not a server-trust challenge, or an unpinned host: the system decides.
            case notPinned
            /// The system trusts the chain and a key of it matches a pin.
            case trusted(URLCredential)
            /// The chain is untrusted, the key unreadable or matching no pin: cancel.
            case refused(PinningFailure)
        }

        /// The DER SubjectPublicKeyInfo of `certificate`'s key; `nil` when it cannot be read or is
        /// neither RSA nor elliptic-curve.
        private static func publicKeyInfo(of certificate: SecCertificate) -> Data? {
            guard let key = SecCertificateCopyKey(certificate),
                let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?,
                let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
                let type = attributes[kSecAttrKeyType] as? String
            else { return nil }
            // `==` against the bridged constants: `case kSecAttrKeyTypeRSA as String:` would be a
            // cast pattern around a `CFString` expression pattern, which cannot match a `String`.
            if type == kSecAttrKeyTypeRSA as String {
                return SubjectPublicKeyInfo.der(rawKey: raw, algorithm: .rsa)
            }
            if type == kSecAttrKeyTypeECSECPrimeRandom as String {
                return SubjectPublicKeyInfo.der(rawKey: raw, algorithm: .ellipticCurve)
            }
            return nil
        }

        /// The system's evaluation of `challenge`'s trust, then the pins of its host against every
        /// key of the validated chain.
        func evaluate(_ challenge: URLAuthenticationChallenge) -> TrustDecision {
            let space = challenge.protectionSpace
            guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let pins = pins(for: space.host)
            else { return .notPinned }
            let host = Self.normalized(space.host)
            func refused(_ reason: String) -> TrustDecision {
                .refused(PinningFailure(host: host, presented: nil, pins: pins, reason: reason))
            }
            guard let trust = space.serverTrust else { return refused("the challenge carried no server trust") }
            guard SecTrustEvaluateWithError(trust, nil) else { return refused("the system does not trust the certificate chain") }
            guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], !chain.isEmpty else {
                return refused("the validated certificate chain could not be read")
            }
            do throws(PinningFailure) {
                try check(host: host, chain: chain.map(Self.publicKeyInfo(of:)))
            } catch {
                return .refused(error)
            }
            return .trusted(URLCredential(trust: trust))
        }
    }
#endif
