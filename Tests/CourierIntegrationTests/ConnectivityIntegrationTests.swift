import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Failures before any HTTP response: the error classifies them and keeps the `URLError`.
@Suite("Connectivity failures", .loopback, .timeLimit(.minutes(1)))
struct ConnectivityIntegrationTests {
    /// The port of a server that has been stopped has no listener: connecting is refused at
    /// once (RST), on 127.0.0.1 only. The kernel does not hand a just-freed ephemeral port to
    /// the next `bind(0)` in practice, so a parallel test taking it over is not a real concern.
    @Test func aPortWithNoListenerEndsAsTransportCannotConnectKeepingTheURLError() async throws {
        let stopped = try await TestServer.start()
        let baseURL = stopped.baseURL
        await stopped.stop()
        let endpoint = try TestEndpoint(baseURL: baseURL, path: URLPath("/anything")).with { $0.timeout = .seconds(20) }

        let result = await makeClient().enqueue(endpoint).result()

        guard case .failure(let error) = result, case .transport(let failure) = error else {
            Issue.record("expected .transport(.cannotConnect), got \(result)")
            return
        }
        #expect(failure.kind == .cannotConnect)
        #expect(failure.urlError?.code == .cannotConnectToHost)
        #expect(error.urlError == failure.urlError)
        #expect(failure.url?.absoluteString == "\(baseURL)/anything")
    }

    #if AsyncHTTPClientLinked
        /// async-http-client's own error (a SwiftNIO connect error) stays inside the failure, next
        /// to the `URLError` Courier makes from it.
        @Test func asyncHTTPClientKeepsItsOwnErrorAsTheUnderlyingError() async throws {
            let stopped = try await TestServer.start()
            let baseURL = stopped.baseURL
            await stopped.stop()
            let endpoint = try TestEndpoint(baseURL: baseURL, path: URLPath("/anything")).with { $0.timeout = .seconds(20) }

            let result = await makeClient(transport: .asyncHTTPClient).enqueue(endpoint).result()

            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected .transport(.cannotConnect), got \(result)")
                return
            }
            #expect(failure.kind == .cannotConnect)
            #expect(failure.underlyingError != nil)
            #expect(!(failure.underlyingError is URLError))
            #expect(!(failure.underlyingError is CourierError))
        }

        /// A refused connection reads as the system's reason, not as SwiftNIO's nested
        /// description (`connect(descriptor:addr:size:): Connection refused) (errno: 111)`).
        @Test func aRefusedConnectionOverAsyncHTTPClientReadsAsTheSystemsReason() async throws {
            let stopped = try await TestServer.start()
            let baseURL = stopped.baseURL
            await stopped.stop()
            let endpoint = try TestEndpoint(baseURL: baseURL, path: URLPath("/anything")).with { $0.timeout = .seconds(20) }

            let result = await makeClient(transport: .asyncHTTPClient).enqueue(endpoint).result()

            guard case .failure(let error) = result, case .transport(let failure) = error else {
                Issue.record("expected .transport(.cannotConnect), got \(result)")
                return
            }
            #expect(failure.message == "Connection refused (errno \(ECONNREFUSED))")
            #expect(
                "\(error)"
                    == "Transport failure: cannotConnect, URLError -1004 (cannotConnectToHost), for \(baseURL)/anything, Connection refused (errno \(ECONNREFUSED))"
            )
        }

        /// A host name is tried at each of its addresses (SwiftNIO's happy eyeballs): the message
        /// names the host, the port and the addresses tried, and the reason, without SwiftNIO's
        /// wrappers (`Connection errors: SingleConnectionFailure(target: [IPv4]localhost/…`).
        @Test func aRefusedConnectionToAHostNameNamesTheHostAndTheReason() async throws {
            let stopped = try await TestServer.start()
            let port = stopped.port
            await stopped.stop()
            let endpoint = try TestEndpoint(baseURL: BaseURL(scheme: .http, host: "localhost", port: port), path: URLPath("/anything"))
                .with { $0.timeout = .seconds(20) }

            let result = await makeClient(transport: .asyncHTTPClient).enqueue(endpoint).result()

            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected .transport(.cannotConnect), got \(result)")
                return
            }
            let message = try #require(failure.message)
            #expect(message.hasPrefix("cannot connect to localhost:\(port)"))
            #expect(message.contains("Connection refused (errno \(ECONNREFUSED))"))
            #expect(!message.contains("errno:"))
            #expect(!message.contains("SingleConnectionFailure"))
        }
    #endif
}
