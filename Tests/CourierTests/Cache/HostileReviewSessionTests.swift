import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// A server in an async closure: it may act on the client (sign out, switch users) while it
/// answers.
private final class HostileReviewOrigin: Transport {
    let requests = LockedState<[TransportRequest]>([])
    let answer: @Sendable (TransportRequest, Int) async throws(CourierError) -> StreamedResponse

    init(answer: @escaping @Sendable (TransportRequest, Int) async throws(CourierError) -> StreamedResponse) {
        self.answer = answer
    }

    var count: Int { requests.withLock { $0.count } }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let number = requests.withLock { requests in
            requests.append(request)
            return requests.count
        }
        return try await answer(request, number)
    }
}

/// Hostile review of issue 37: a session that ends while a call is on the wire gets nothing of
/// its stored entries, whatever the server answers (a `304`, an error).
@Suite("HostileReview: sessions that end while a call is on the wire")
struct HostileReviewSessionTests: CacheSuite {
    let clock = CacheTestClock()

    /// Alice's entry is stale; her call revalidates it. While it is on the wire the app switches
    /// to Bob (`reset(to:)`), the first attempt fails with a 503, and the retry carries Bob's
    /// token with Alice's validator. Bob's resource has the same version, so the server says
    /// 304: the cache must not answer with Alice's body (her session has ended).
    @Test("a 304 that arrives after the session ended does not serve the ended session's entry")
    func notModifiedAfterTheSessionEnded() async throws {
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(TokenCredential(accessToken: "alice")), refresh: { _ in TokenCredential(accessToken: "alice2") })
        let origin = HostileReviewOrigin { request, number throws(CourierError) in
            let user = request.header("Authorization") == "Bearer bob" ? "bob" : "alice"
            if request.header("If-None-Match") != nil {
                if user == "alice" {
                    try? await refresher.reset(to: TokenCredential(accessToken: "bob"))
                    return StreamedResponse(statusCode: 503, url: request.url)
                }
                return StreamedResponse(statusCode: 304, headers: ["ETag": "\"v1\""], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "private, max-age=60", "ETag": "\"v1\""],
                body: Data("\(user)'s data \(number)".utf8), url: request.url)
        }
        let client = signedInClient(
            origin, cache: memoryCache(), refresher: refresher, retries: RetryPolicy(maxAttempts: 2, baseDelay: .zero, maxDelay: .zero))
        #expect(text(try await client.enqueue(mine).resume()) == "alice's data 1")
        clock.advance(120)
        let answer = try await client.enqueue(mine).resume()
        #expect(!text(answer).hasPrefix("alice"), "Bob's call was answered with Alice's data: \(text(answer))")
        #expect(text(answer).hasPrefix("bob"))
    }

    @Test(
        "stale-if-error does not serve an entry of a session that ended while the request was on the wire",
        arguments: [false, true])
    func staleIfErrorAfterTheSessionEnded(serverError: Bool) async throws {
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(TokenCredential(accessToken: "alice")), refresh: { _ in TokenCredential(accessToken: "alice2") })
        let origin = HostileReviewOrigin { request, number throws(CourierError) in
            if number == 1 {
                return StreamedResponse(
                    statusCode: 200, headers: ["Cache-Control": "private, max-age=60, stale-if-error=600"],
                    body: Data("alice's data".utf8), url: request.url)
            }
            try? await refresher.signOut()
            if serverError { return StreamedResponse(statusCode: 503, url: request.url) }
            throw .transport(TransportFailure(URLError(.cannotConnectToHost), url: request.url))
        }
        let client = signedInClient(origin, cache: memoryCache(staleIfError: true), refresher: refresher)
        #expect(text(try await client.enqueue(mine).resume()) == "alice's data")
        clock.advance(120)
        // Failing is right: the session that could have used the stored response is over.
        if case .success(let response) = await client.enqueue(mine).result() {
            #expect(text(response) != "alice's data", "served from a session that ended")
        }
    }
}
