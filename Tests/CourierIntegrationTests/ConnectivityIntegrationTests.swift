import Courier
import FlyingFox
import Foundation
import Testing

/// Failures before any HTTP response: the error classifies them and keeps the `URLError`.
@Suite("Connectivity failures", .timeLimit(.minutes(1)))
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
    #endif
}
