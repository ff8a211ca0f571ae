import Courier
import Foundation
import Testing

/// An error of the test's own, to find again inside Courier's failures.
private struct SourceBroke: Error, Equatable {
    var code: Int
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
}
