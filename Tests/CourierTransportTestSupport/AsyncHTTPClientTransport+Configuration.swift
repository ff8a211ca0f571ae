// Test support, not part of any product: the package's tests describe their TLS servers, proxies
// and pools with these PEM-byte settings. Users pass async-http-client's own
// `HTTPClient.Configuration` to `AsyncHTTPClientTransport.init(configuration:pinning:)`, which
// `init(configuration:)` below calls.
#if AsyncHTTPClientLinked
    import AsyncHTTPClient
    package import Courier
    package import Foundation
    import NIOCore
    import NIOSSL

    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    extension AsyncHTTPClientTransport {
        /// Connection settings described with PEM bytes, turned into async-http-client's (the
        /// package's tests describe their TLS servers this way; users pass
        /// `HTTPClient.Configuration` to `AsyncHTTPClientTransport.init(configuration:pinning:)`).
        package struct Configuration: Sendable {
            /// Which HTTP versions a connection may speak.
            package enum HTTPVersion: Sendable, Hashable {
                /// HTTP/1.1 only.
                case http1Only
                /// HTTP/2 when the server offers it during the TLS handshake (ALPN), else
                /// HTTP/1.1; plain `http` is always HTTP/1.1.
                case automatic
            }

            /// Default: ``HTTPVersion/automatic``.
            package var httpVersion: HTTPVersion
            /// The HTTP/1.1 connections kept open to one host, a soft limit: more requests than
            /// this wait for a free connection. HTTP/2 multiplexes over one connection. Default: 8.
            package var maximumConnectionsPerHost: Int
            /// How long an unused pooled connection stays open. Default: 60 s.
            package var idleTimeout: Duration
            /// The proxy every request goes through, or `nil` (default) for direct connections.
            /// The `http_proxy`/`https_proxy` environment variables are not read.
            package var proxy: Proxy?
            /// Trust roots, client certificate, pins and minimum TLS version.
            package var tls: TLS

            /// A configuration; every argument has the default described on its property.
            package init(
                httpVersion: HTTPVersion = .automatic,
                maximumConnectionsPerHost: Int = 8,
                idleTimeout: Duration = .seconds(60),
                proxy: Proxy? = nil,
                tls: TLS = TLS()
            ) {
                self.httpVersion = httpVersion
                self.maximumConnectionsPerHost = maximumConnectionsPerHost
                self.idleTimeout = idleTimeout
                self.proxy = proxy
                self.tls = tls
            }
        }

        /// A proxy server. Its password is never printed.
        package struct Proxy: Sendable, CustomStringConvertible, CustomReflectable {
            enum Kind: Sendable {
                case http(username: String?, password: String?)
                case socks
            }

            let host: String
            let port: Int
            let kind: Kind

            /// An HTTP proxy. Every request goes through a `CONNECT` tunnel (async-http-client
            /// tunnels plain `http` too), so TLS and pins stay end to end. With a user name, the
            /// `CONNECT` carries `Proxy-Authorization: Basic`, which never reaches the target.
            package static func http(host: String, port: Int, username: String? = nil, password: String? = nil) -> Proxy {
                Proxy(host: host, port: port, kind: .http(username: username, password: password))
            }

            /// A SOCKS5 proxy, without authentication.
            package static func socks(host: String, port: Int = 1080) -> Proxy {
                Proxy(host: host, port: port, kind: .socks)
            }

            /// `http://host:port` or `socks5://host:port`, with the user name but never the password.
            package var description: String {
                switch kind {
                case .http(let username, _): "http://\(username.map { "\($0)@" } ?? "")\(host):\(port)"
                case .socks: "socks5://\(host):\(port)"
                }
            }

            /// The description only: the password stays out of `dump` and debuggers.
            package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

            var httpClientProxy: HTTPClient.Configuration.Proxy {
                switch kind {
                case .http(let username?, let password):
                    .server(host: host, port: port, authorization: .basic(username: username, password: password ?? ""))
                case .http(nil, _):
                    .server(host: host, port: port)
                case .socks:
                    .socksServer(host: host, port: port)
                }
            }
        }

        /// TLS settings: whom to trust, who we are, which keys to insist on.
        package struct TLS: Sendable {
            /// The certificates a server's chain may end at.
            package enum TrustRoots: Sendable {
                /// The operating system's roots (default).
                case system
                /// Only these PEM certificates (one or more, concatenated): a private CA, for
                /// servers that no public CA vouches for.
                case certificates(pem: Data)
                /// The operating system's roots and these PEM certificates.
                case systemAnd(pem: Data)
            }

            /// The TLS versions a connection may use at least.
            package enum MinimumVersion: Sendable, Hashable {
                /// TLS 1.2 (default): what every current server speaks.
                case tls12
                /// TLS 1.3 only.
                case tls13
            }

            /// Default: ``TrustRoots/system``.
            package var trustRoots: TrustRoots
            /// The certificate and key presented to servers that ask for one (mutual TLS), or
            /// `nil` (default).
            package var clientCertificate: ClientCertificate?
            /// Public-key pins per host, checked on every new connection before any request is
            /// written (see ``PinningPolicy``). Default: ``PinningPolicy/none``.
            package var pinning: PinningPolicy
            /// Default: ``MinimumVersion/tls12``.
            package var minimumVersion: MinimumVersion

            /// TLS settings; every argument has the default described on its property.
            package init(
                trustRoots: TrustRoots = .system,
                clientCertificate: ClientCertificate? = nil,
                pinning: PinningPolicy = .none,
                minimumVersion: MinimumVersion = .tls12
            ) {
                self.trustRoots = trustRoots
                self.clientCertificate = clientCertificate
                self.pinning = pinning
                self.minimumVersion = minimumVersion
            }
        }

        /// A client certificate chain and its private key, both PEM. The key is never printed.
        package struct ClientCertificate: Sendable, CustomStringConvertible, CustomReflectable {
            /// The leaf certificate first, then any intermediates.
            package var certificateChainPEM: Data
            /// The leaf's private key (PKCS #8, or traditional RSA/EC PEM), unencrypted.
            package var privateKeyPEM: Data

            /// A client identity from PEM bytes; checked when the transport is created.
            package init(certificateChainPEM: Data, privateKeyPEM: Data) {
                self.certificateChainPEM = certificateChainPEM
                self.privateKeyPEM = privateKeyPEM
            }

            /// `ClientCertificate(<n> bytes of chain, private key redacted)`.
            package var description: String {
                "ClientCertificate(\(certificateChainPEM.count) bytes of chain, private key <redacted>)"
            }

            /// The description only: the key stays out of `dump` and debuggers.
            package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
        }
    }

    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    extension AsyncHTTPClientTransport.Configuration {
        /// async-http-client's configuration for these settings, before Courier's own (which
        /// `AsyncHTTPClientTransport.init(configuration:pinning:)` applies).
        /// - Throws: ``InvalidRequest/invalidTLSConfiguration(_:)`` for PEM that does not parse.
        func httpClientConfiguration() throws(CourierError) -> HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: try tls.nioConfiguration(),
                connectionPool: HTTPClient.Configuration.ConnectionPool(
                    idleTimeout: TimeAmount(bounded: idleTimeout),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maximumConnectionsPerHost)),
                proxy: proxy?.httpClientProxy)
            configuration.httpVersion = httpVersion == .http1Only ? .http1Only : .automatic
            return configuration
        }
    }

    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    extension AsyncHTTPClientTransport {
        /// A transport for the settings of `configuration` and its pins (tests describe TLS
        /// servers with PEM bytes this way).
        package convenience init(configuration: Configuration) throws(CourierError) {
            try self.init(configuration: configuration.httpClientConfiguration(), pinning: configuration.tls.pinning)
        }
    }

    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    extension AsyncHTTPClientTransport.TLS {
        /// NIOSSL's configuration for these settings (pins are checked separately, per host).
        func nioConfiguration() throws(CourierError) -> TLSConfiguration {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = minimumVersion == .tls13 ? .tlsv13 : .tlsv12
            switch trustRoots {
            case .system:
                break
            case .certificates(let pem):
                configuration.trustRoots = .certificates(try Self.certificates(pem, what: "trust roots"))
            case .systemAnd(let pem):
                configuration.additionalTrustRoots = [.certificates(try Self.certificates(pem, what: "trust roots"))]
            }
            if let clientCertificate {
                let chain = try Self.certificates(clientCertificate.certificateChainPEM, what: "client certificate chain")
                let key: NIOSSLPrivateKey
                do {
                    key = try NIOSSLPrivateKey(bytes: [UInt8](clientCertificate.privateKeyPEM), format: .pem)
                } catch {
                    throw .invalidRequest(.invalidTLSConfiguration("the client private key is not an unencrypted PEM key"))
                }
                configuration.certificateChain = chain.map { .certificate($0) }
                configuration.privateKey = .privateKey(key)
            }
            return configuration
        }

        /// The certificates in `pem`, at least one.
        private static func certificates(_ pem: Data, what: String) throws(CourierError) -> [NIOSSLCertificate] {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMBytes([UInt8](pem))
            } catch {
                throw .invalidRequest(.invalidTLSConfiguration("the \(what) are not PEM certificates"))
            }
            guard !certificates.isEmpty else {
                throw .invalidRequest(.invalidTLSConfiguration("the \(what) hold no PEM certificate"))
            }
            return certificates
        }
    }

    extension TimeAmount {
        /// `duration`, to the nanosecond, clamped to `0...Duration.longestWait` as Courier clamps
        /// every wait it hands to SwiftNIO (a longer one trapped: `Int64` nanoseconds end at 292
        /// years).
        init(bounded duration: Duration) {
            self.init(Swift.min(Swift.max(duration, .zero), Duration.longestWait))
        }
    }
#endif
