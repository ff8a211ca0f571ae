import Courier
import CourierOAuth
import CourierTesting
import Foundation
import Testing

/// An error of the test's own, to find again inside Courier's failures.
private struct SourceBroke: Error, Equatable {
    var code: Int
}

/// A value whose encoding throws ``SourceBroke``.
private struct Unencodable: Encodable, Sendable {
    func encode(to encoder: any Encoder) throws { throw SourceBroke(code: 3) }
}

/// A POST to 127.0.0.1 with `body`, sent to a transport that answers 200 after reading the body.
private struct Upload: Requestable {
    var body: RequestBody?
    var method: HTTPMethod { .post }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "127.0.0.1") }
    func path() throws(CourierError) -> URLPath { try URLPath("/upload") }
}

/// What `body` fails with when sent, as an ``InvalidRequest``.
private func failure(sending body: RequestBody) async -> InvalidRequest? {
    let transport = RecordingTransport()
    let client = Client(configuration: Configuration(transport: transport))
    do {
        _ = try await client.enqueue(Upload(body: body)).resume()
        return nil
    } catch .invalidRequest(let failure) {
        return failure
    } catch {
        Issue.record("expected .invalidRequest, got \(error)")
        return nil
    }
}

@Suite("Errors keep their cause as a value")
struct ErrorCauseTests {
    @Test("a streamed body whose source throws fails as connectionLost with the source's error kept whole")
    func aBodySourceErrorIsKept() async {
        let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.yield(Data("half".utf8))
        continuation.finish(throwing: SourceBroke(code: 7))
        let body = ResponseBody(chunks)

        do {
            _ = try await body.collect(upTo: nil)
            Issue.record("the body's failure was lost")
        } catch .transport(let failure) {
            #expect(failure.kind == .connectionLost)
            #expect(failure.underlyingError as? SourceBroke == SourceBroke(code: 7))
        } catch {
            Issue.record("expected .transport, got \(error)")
        }
    }

    @Test("a custom refresh closure's error is the refresh failure's underlying error")
    func aRefreshClosureErrorIsKept() async {
        let expired = TokenCredential(accessToken: "old", expiresAt: Date(timeIntervalSince1970: 0))
        let refresher = TokenRefresher(store: InMemoryTokenStore(expired)) { _ in throw SourceBroke(code: 42) }

        do {
            _ = try await refresher.validCredential()
            Issue.record("the refresh cannot succeed")
        } catch .authentication(.refreshFailed(let failure)) {
            #expect(failure.underlyingError as? SourceBroke == SourceBroke(code: 42))
            #expect(!failure.isPermanent)
        } catch {
            Issue.record("expected .refreshFailed, got \(error)")
        }
    }

    @Test("the underlying error takes no part in equality and is never printed")
    func underlyingErrorsAreNotCompared() {
        let url = URL(string: "https://api.example.com/v1?token=secret")!
        let a = TransportFailure(kind: .other, url: url, message: "m", underlyingError: SourceBroke(code: 1))
        let b = TransportFailure(kind: .other, url: url, message: "m", underlyingError: URLError(.unknown, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        #expect(a == b)
        #expect(!a.description.contains("SourceBroke"))
        #expect(!String(describing: a).contains("secret"))
        let refresh = RefreshFailure(reason: .custom("x"), isPermanent: false, underlyingError: SourceBroke(code: 1))
        #expect(refresh == RefreshFailure(reason: .custom("x"), isPermanent: false))
    }

    @Test(
        "an encoder's error is the encoding failure's underlying error",
        arguments: [
            RequestBody.json(Unencodable()),
            RequestBody.custom(contentType: "text/csv") { throw SourceBroke(code: 3) },
        ])
    func anEncoderErrorIsKept(body: RequestBody) async {
        guard case .encodingFailed(_, let underlyingError)? = await failure(sending: body) else {
            Issue.record("expected .encodingFailed")
            return
        }
        // Kept as thrown, or inside the EncodingError an encoder made of it.
        let kept = underlyingError as? SourceBroke ?? (underlyingError as? EncodingError).flatMap(Self.cause)
        #expect(kept == SourceBroke(code: 3))
    }

    @Test("a query encoder's error is the encoding failure's underlying error")
    func aQueryEncoderErrorIsKept() {
        do {
            _ = try QueryParameters(encoding: Unencodable())
            Issue.record("the encoding cannot succeed")
        } catch .invalidRequest(.encodingFailed(_, let underlyingError)) {
            #expect(underlyingError != nil)
        } catch {
            Issue.record("expected .encodingFailed, got \(error)")
        }
    }

    @Test("an upload sequence's error is the body-source failure's underlying error")
    func anUploadSequenceErrorIsKept() async throws {
        let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.yield(Data("half".utf8))
        continuation.finish(throwing: SourceBroke(code: 9))
        var reader = try BodyStream(chunks).makeReader()

        do {
            while try await reader.next() != nil {}
            Issue.record("the sequence's failure was lost")
        } catch .invalidRequest(.bodySourceFailed(_, let underlyingError)) {
            #expect(underlyingError as? SourceBroke == SourceBroke(code: 9))
        } catch {
            Issue.record("expected .bodySourceFailed, got \(error)")
        }
    }

    @Test("an invalid request's underlying error takes no part in equality and is never printed")
    func invalidRequestCausesAreNotCompared() {
        let a = InvalidRequest.encodingFailed("m", underlyingError: SourceBroke(code: 1))
        #expect(a == .encodingFailed("m"))
        #expect(a != .encodingFailed("n"))
        #expect(InvalidRequest.bodySourceFailed("m", underlyingError: SourceBroke(code: 1)) == .bodySourceFailed("m"))
        #expect(!a.description.contains("SourceBroke"))
    }

    /// The error an `EncodingError.invalidValue` was made from, when it names one.
    private static func cause(_ error: EncodingError) -> SourceBroke? {
        guard case .invalidValue(_, let context) = error else { return nil }
        return context.underlyingError as? SourceBroke
    }

    @Test("a browser that fails to open is the authorization failure's underlying error")
    func aBrowserErrorIsKept() async throws {
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "127.0.0.1"), path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "app"),
            configuration: Configuration(transport: RecordingTransport()))
        do {
            _ = try await AuthorizationCodeFlow.signIn(
                authorizationEndpoint: URL(string: "http://127.0.0.1:9/authorize")!, tokenEndpoint: tokens, timeout: .seconds(60)
            ) { _ in throw SourceBroke(code: 5) }
            Issue.record("the sign-in cannot succeed")
        } catch .authentication(.authorizationFailed(.unavailable(let why, let underlyingError))) {
            #expect(why.contains("opening the browser failed"))
            #expect(underlyingError as? SourceBroke == SourceBroke(code: 5))
        } catch {
            Issue.record("expected .unavailable, got \(error)")
        }
    }
}
