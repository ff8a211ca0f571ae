import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import PropertyBased
import Testing

@testable import Courier

/// Throws an error of its own without calling `next`.
private struct Refuser: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        throw .invalidRequest(.invalidHeaderName("X-Refused"))
    }
}

/// Passes everything through, errors included.
private struct Relay: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

/// Calls `next`, which fails, then recovers by calling it again and throwing its own error.
private struct SecondGuess: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        _ = try? await next(request)
        var moved = request
        moved.head.headerFields[HTTPField.Name("X-Try")!] = "2"
        if let response = try? await next(moved) { return response }
        throw .invalidRequest(.invalidHeaderName("X-Try"))
    }
}

/// An endpoint with middleware of its own.
private struct Guarded: Requestable {
    var own: [any Middleware]
    var requiresAuthorization: Bool { false }
    var middleware: [any Middleware] { own }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/items") }
}

/// Points the request at another host while signing it.
private struct Mover: RequestSigner {
    func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError) {
        request.head.authority = "evil.example.net"
    }
}

@Suite("The pipeline: one list of stages per client, printed, and the failing stage named")
struct PipelineStagesTests {
    /// A configuration whose logger keeps its error lines.
    private static func logged(_ configure: (inout Configuration) -> Void = { _ in }) -> (Configuration, ErrorLines) {
        let captured = CapturedLines()
        var configuration = Configuration(transport: RecordingTransport())
        configuration.logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
        configure(&configuration)
        return (configuration, ErrorLines(captured: captured))
    }

    /// The error lines of a ``CapturedLines``.
    private struct ErrorLines {
        let captured: CapturedLines
        var all: [String] { captured.all.filter { $0.0 == .error }.map(\.1) }
    }

    @Test("print(client) shows every stage in order, the configuration's middleware by type")
    func theDescriptionIsTheOrder() {
        var configuration = Configuration(transport: RecordingTransport())
        configuration.middleware = [Relay(), Refuser()]
        configuration.cache = HTTPCache(storage: MemoryCacheStorage(capacity: 1 << 16))
        configuration.retryPolicy = .default
        configuration.authentication = .basic(BasicCredential(username: "ada", password: "secret"))
        #expect(
            Client(configuration: configuration).description
                == "admission → constraints → request → Relay → Refuser → endpoint middleware → download progress → cache → retry → "
                + "authentication → attempt observation → body collection → transport → status check")
        #expect(
            "\(Client(configuration: Configuration(transport: RecordingTransport())))"
                == "admission → constraints → request → endpoint middleware → download progress → attempt observation → "
                + "body collection → transport → status check")
    }

    @Test("a client builds its stages once: every call runs the same list")
    func theListIsBuiltOnce() async throws {
        let client = Client(configuration: Configuration(transport: RecordingTransport()))
        let before = client.pipeline.stages.map { ObjectIdentifier(type(of: $0)) }
        _ = try await client.enqueue(TestEndpoint()).resume()
        #expect(client.pipeline.stages.map { ObjectIdentifier(type(of: $0)) } == before)
        #expect(client.pipeline.attemptIndex == 2)
    }

    @Test("a middleware's own error is named in the call's error line and its span; an error it relays is not")
    func aMiddlewaresOwnErrorNamesIt() async throws {
        let tracer = InMemoryTracer()
        let (configuration, lines) = Self.logged {
            $0.middleware = [Relay(), Refuser()]
            $0.tracer = tracer
        }
        let client = Client(configuration: configuration)
        await #expect(throws: CourierError.self) { try await client.enqueue(TestEndpoint(pathString: "/a")).resume() }
        let logged = lines.all
        #expect(logged.count == 1)
        #expect(logged.first?.hasPrefix("GET https://api.example.com/a failed in stage Refuser: Invalid request: ") == true)
        let call = try #require(tracer.finishedSpans.first { $0.kind == .client || $0.kind == .internal })
        #expect(call.attributes.get("courier.failed_stage") == .string("Refuser"))
    }

    @Test("a transport failure relayed through middleware is the attempt's: one error line, no stage named")
    func aRelayedFailureIsTheAttempts() async throws {
        let (configuration, lines) = Self.logged {
            $0.transport = RecordingTransport { request throws(CourierError) in throw .transport(TransportFailure(kind: .connectionLost)) }
            $0.middleware = [Relay(), Relay()]
        }
        _ = try? await Client(configuration: configuration).enqueue(TestEndpoint()).resume()
        let logged = lines.all
        #expect(logged.count == 1)
        #expect(logged.allSatisfy { !$0.contains("in stage") })
    }

    @Test("a middleware that gives up with an error of its own after its next failed is named, with its error")
    func anOwnErrorAfterAFailedNextIsNamed() async throws {
        let (configuration, lines) = Self.logged {
            $0.transport = RecordingTransport { request throws(CourierError) in throw .transport(TransportFailure(kind: .connectionLost)) }
            $0.middleware = [SecondGuess()]
        }
        _ = try? await Client(configuration: configuration).enqueue(TestEndpoint()).resume()
        let named = lines.all.filter { $0.contains("in stage") }
        #expect(named.count == 1)
        #expect(named.first?.contains("failed in stage SecondGuess: Invalid request: invalid header name \"X-Try\"") == true)
    }

    @Test("an endpoint's own middleware is named by its type")
    func anEndpointMiddlewareIsNamed() async throws {
        let (configuration, lines) = Self.logged()
        _ = try? await Client(configuration: configuration).enqueue(Guarded(own: [Relay(), Refuser()])).resume()
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains("failed in stage Refuser: ") == true)
    }

    @Test("a signer that moves the request elsewhere fails in the authentication stage, named")
    func authenticationIsNamed() async throws {
        let (configuration, lines) = Self.logged {
            $0.authentication = .signed(Mover())
            $0.authorizedHosts = ["api.example.com"]
        }
        let transport = configuration.transport as! RecordingTransport
        await #expect(throws: CourierError.self) { try await Client(configuration: configuration).enqueue(TestEndpoint()).resume() }
        #expect(await transport.requests.isEmpty)
        #expect(lines.all.first?.contains("failed in stage authentication: Authentication failure") == true)
    }

    @Test("a cancelled call names no stage")
    func cancellationIsNotNamed() async throws {
        let (configuration, lines) = Self.logged { $0.middleware = [CancelledHere()] }
        _ = try? await Client(configuration: configuration).enqueue(TestEndpoint()).resume()
        #expect(lines.all.isEmpty)
    }

    private struct CancelledHere: Middleware {
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            throw .cancelled
        }
    }

    @Test("for any client and call, the stages that run are the client's list minus those with nothing to do, in the client's order")
    func theStagesThatRunAreTheListFiltered() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.bool, Gen.bool, Gen.bool, Gen.bool, Gen.bool, Gen.bool
        ) { users, own, cached, retries, credential, authorized, collects, progress in
            var configuration = Configuration(transport: RecordingTransport())
            configuration.middleware = Array(repeating: Relay(), count: users)
            if cached { configuration.cache = HTTPCache(storage: MemoryCacheStorage(capacity: 1 << 16)) }
            configuration.retryPolicy = retries ? .default : .none
            if credential { configuration.authentication = .basic(BasicCredential(username: "ada", password: "secret")) }
            configuration.authorizedHosts = ["api.example.com"]
            struct Endpoint: Requestable {
                var own: Int
                var requiresAuthorization: Bool
                var middleware: [any Middleware] { Array(repeating: Relay(), count: own) }
                func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
                func path() throws(CourierError) -> URLPath { try URLPath("/") }
            }
            var options = CallOptions()
            options.collectsBody = collects
            if progress { options.downloadMeter = ProgressMeter.makeUpdates(.download).1 }
            let client = Client(configuration: configuration)
            guard let call = try? client.prepare(Endpoint(own: own, requiresAuthorization: authorized), options: options, trace: nil).stages
            else {
                Issue.record("the call could not be prepared")
                return
            }
            var expected = Array(repeating: "Relay", count: users)
            if own > 0 { expected.append("endpoint middleware") }
            if progress { expected.append("download progress") }
            if cached { expected.append("cache") }
            if retries { expected.append("retry") }
            if credential && authorized { expected.append("authentication") }
            expected.append("attempt observation")
            if collects { expected.append("body collection") }
            expected.append("transport")
            #expect(client.pipeline.stageNames(for: call) == expected)
            // The request reaches the transport unchecked only when no stage that could change it ran.
            #expect((call.trail == nil) == (users == 0 && own == 0 && !progress && !cached && !retries && !(credential && authorized)))
            // The description lists every stage of the client: those of this call appear in it in the same order.
            let described = client.description.components(separatedBy: " → ")
            var position = described.startIndex
            for name in expected {
                guard let found = described[position...].firstIndex(of: name) else {
                    Issue.record("\(name) is not in the description after position \(position)")
                    return
                }
                position = found + 1
            }
        }
    }
}
