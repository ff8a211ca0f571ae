import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Every call goes out through one send: what a download, an event stream or a progress observer
/// changes travels beside the endpoint in ``CallOptions``, and the stages are one list holding
/// only those that do something.
@Suite("One call path: call options and the stage list")
struct CallOptionsTests {
    @Test("the options' headers replace the endpoint's and the configuration's of the same name, case-insensitively")
    func optionsHeadersReplaceTheEndpointsAndTheConfigurations() throws {
        var configuration = Configuration()
        configuration.headers = [HeaderItem(name: "Accept", value: "application/xml"), HeaderItem(name: "X-Client", value: "c")]
        var endpoint = TestEndpoint()
        endpoint.headerItems = [HeaderItem(name: "accept", value: "application/json"), HeaderItem(name: "X-Kept", value: "k")]
        var options = CallOptions()
        options.replaceHeaders(with: [HeaderItem(name: "ACCEPT", value: "text/event-stream")])
        let request = try RequestBuilder.build(endpoint, configuration: configuration, options: options)
        #expect(request.head.headerFields[values: .accept] == ["text/event-stream"])
        #expect(request.header("X-Kept") == "k")
        #expect(request.header("X-Client") == "c")
    }

    @Test("a header the options drop without a replacement is not sent")
    func aDroppedHeaderIsNotSent() throws {
        var endpoint = TestEndpoint()
        endpoint.headerItems = [HeaderItem(name: "Last-Event-ID", value: "7"), HeaderItem(name: "X-Kept", value: "k")]
        let options = EventStreamRequest.options(lastEventID: nil, connectionTimeout: .seconds(30))
        let request = try RequestBuilder.build(endpoint, configuration: Configuration(), options: options)
        #expect(request.header("Last-Event-ID") == nil)
        #expect(request.header("X-Kept") == "k")
        #expect(request.header("Accept") == "text/event-stream")
    }

    @Test("the options' timeout replaces the endpoint's")
    func optionsTimeoutReplacesTheEndpoints() throws {
        var endpoint = TestEndpoint()
        endpoint.timeout = .seconds(5)
        var options = CallOptions()
        options.timeout = .seconds(90)
        #expect(try RequestBuilder.build(endpoint, configuration: Configuration(), options: options).timeout == .seconds(90))
        #expect(try RequestBuilder.build(endpoint, configuration: Configuration()).timeout == .seconds(5))
    }

    struct PassThrough: Middleware {
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            try await next(request)
        }
    }

    @Test("a call without middleware, retries or credential goes straight to the attempt, with the request as built")
    func theCommonCallHasNoStage() throws {
        var configuration = Configuration()
        configuration.authentication = .basic(BasicCredential(username: "alice", password: "secret"))
        struct Public: Requestable {
            func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
            func path() throws(CourierError) -> URLPath { try URLPath("/") }
            var requiresAuthorization: Bool { false }
        }
        let client = Client(configuration: configuration)
        let call = try client.prepare(Public(), options: CallOptions(), trace: nil).stages
        #expect(client.pipeline.stageNames(for: call) == ["attempt observation", "body collection", "transport"])
        #expect(call.trail == nil)
        #expect(call.context.metrics.discards, "nothing reads the metrics of a call without middleware")
    }

    @Test("the client's stages hold the configuration's middleware, the endpoint's, the progress counter, retry and authentication, in that order")
    func theStageListIsInOrder() throws {
        var configuration = Configuration()
        configuration.middleware = [PassThrough()]
        configuration.retryPolicy = .default
        configuration.authentication = .basic(BasicCredential(username: "alice", password: "secret"))
        configuration.authorizedHosts = ["api.example.com"]
        struct WithMiddleware: Requestable {
            func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
            func path() throws(CourierError) -> URLPath { try URLPath("/") }
            var middleware: [any Middleware] { [CallOptionsTests.PassThrough()] }
        }
        var options = CallOptions()
        options.downloadMeter = ProgressMeter.makeUpdates(.download).1
        options.collectsBody = false
        let client = Client(configuration: configuration)
        let call = try client.prepare(WithMiddleware(), options: options, trace: nil).stages
        #expect(
            client.pipeline.stageNames(for: call) == [
                "PassThrough", "endpoint middleware", "download progress", "retry", "authentication", "attempt observation", "transport",
            ])
        #expect(call.trail != nil)
        #expect(String(describing: type(of: call.context.endpoint)) == "WithMiddleware")
        #expect(!call.context.metrics.discards)
    }

    /// Answers with a whole body of its own.
    struct WholeAnswer: Middleware {
        let size: Int
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            StreamedResponse(status: .ok, body: ResponseBody(Data(count: size)), url: request.url)
        }
    }

    @Test("a whole body a middleware returns past the limit fails the call as responseTooLarge; one at the limit passes")
    func aMiddlewaresWholeBodyIsCheckedAgainstTheLimit() async throws {
        for (size, fails) in [(1025, true), (1024, false)] {
            let client = makeClient(RecordingTransport()) {
                $0.middleware = [WholeAnswer(size: size)]
                $0.maximumResponseSize = 1024
            }
            do {
                let response = try await client.enqueue(TestEndpoint()).resume()
                #expect(!fails && response.body.count == size)
            } catch {
                guard case .transport(let failure) = error else {
                    Issue.record("expected responseTooLarge, got \(error)")
                    continue
                }
                #expect(fails && failure.kind == .responseTooLarge)
            }
        }
    }
}
