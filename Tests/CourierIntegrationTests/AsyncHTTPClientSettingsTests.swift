#if AsyncHTTPClientLinked
    import AsyncHTTPClient
    import NIOCore
    import NIOSSL
    @testable import Courier
    import FlyingFox
    import Foundation
    import Testing

    /// `AsyncHTTPClientTransport(configuration:pinning:)` takes async-http-client's own settings,
    /// and keeps four of them Courier's whatever the caller set: a careless configuration (one
    /// that follows redirects, retries connections, or leaves the 10 s connect timeout) must not
    /// turn off Courier's redirect policy or its deadlines.
    @Suite("async-http-client settings", .loopback, .timeLimit(.minutes(1)))
    struct AsyncHTTPClientSettingsTests {
        /// A configuration that asks for everything Courier must override.
        static var careless: AsyncHTTPClient.HTTPClient.Configuration {
            var configuration = AsyncHTTPClient.HTTPClient.Configuration(redirectConfiguration: .follow(max: 5, allowCycles: false))
            configuration.connectionPool.retryConnectionEstablishment = true
            configuration.decompression = .disabled
            return configuration
        }

        @Test("a configuration that follows redirects does not: Courier follows them, and a secret header stays behind at another origin")
        func aFollowingConfigurationStillLeavesRedirectsToCourier() async throws {
            let transport = try AsyncHTTPClientTransport(configuration: Self.careless)
            try await TestServer.run { a in
                try await TestServer.run { b in
                    let landed = Recorder<String?>()
                    let target = b.url("/landing")
                    await a.route("GET /start") { _ in
                        FlyingFox.HTTPResponse(statusCode: .found, headers: [HTTPHeader("Location"): target], body: Data())
                    }
                    await b.route("GET /landing") { request in
                        await landed.record(request.headers[HTTPHeader("X-Api-Key")])
                        return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("from-b".utf8))
                    }
                    // async-http-client's own following keeps `X-Api-Key` (it strips four other
                    // headers); Courier's drops every header its redaction calls secret.
                    let endpoint = try a.endpoint("/start").with { $0.headerItems = [HeaderItem(name: "X-Api-Key", value: "k-1")] }
                    let client = Client(configuration: Configuration(transport: transport, timeout: generousTimeout))
                    let response = try await client.enqueue(endpoint).resume()

                    #expect(response.body == Data("from-b".utf8))
                    #expect(await landed.values == [nil])
                }
            }
        }

        @Test("a connect timeout left unset becomes the call's deadline; one the caller set is kept")
        func connectTimeout() throws {
            #expect(AsyncHTTPClientTransport.withCourierSettings(Self.careless).timeout.connect == TimeAmount.hours(1))
            var configured = Self.careless
            configured.timeout.connect = TimeAmount.seconds(3)
            #expect(AsyncHTTPClientTransport.withCourierSettings(configured).timeout.connect == TimeAmount.seconds(3))
        }

        @Test("without a TLS configuration of the caller's, connections need TLS 1.2 at least; the caller's is kept")
        func minimumTLSVersion() throws {
            let settings = AsyncHTTPClientTransport.withCourierSettings(AsyncHTTPClient.HTTPClient.Configuration())
            #expect(settings.tlsConfiguration?.minimumTLSVersion == .tlsv12)
            var mine = AsyncHTTPClient.HTTPClient.Configuration()
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv13
            mine.tlsConfiguration = tls
            #expect(AsyncHTTPClientTransport.withCourierSettings(mine).tlsConfiguration?.minimumTLSVersion == .tlsv13)
        }

        @Test("connections are not retried by async-http-client, and it traces nothing")
        func connectionRetriesAndTracing() throws {
            let settings = AsyncHTTPClientTransport.withCourierSettings(Self.careless)
            #expect(settings.connectionPool.retryConnectionEstablishment == false)
            #expect(settings.tracing.tracer == nil)
        }

        @Test("a gzip body is decoded although the configuration turned decompression off")
        func decompressionStaysOn() async throws {
            let transport = try AsyncHTTPClientTransport(configuration: Self.careless)
            try await TestServer.run { server in
                let text = String(repeating: "courier ", count: 1_000)
                let gzipped = try #require(try Self.gzip(Data(text.utf8)))
                await server.route("GET /zipped") { _ in
                    FlyingFox.HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Encoding"): "gzip"], body: gzipped)
                }
                let client = Client(configuration: Configuration(transport: transport, timeout: generousTimeout))
                let response = try await client.enqueue(try server.endpoint("/zipped")).resume()
                #expect(response.body == Data(text.utf8))
            }
        }

        /// `data` compressed by the system's `gzip`.
        static func gzip(_ data: Data) throws -> Data? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/gzip")
            process.arguments = ["-c"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(data)
            try input.fileHandleForWriting.close()
            let compressed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return process.terminationStatus == 0 ? compressed : nil
        }
    }
#endif
