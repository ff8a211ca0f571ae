import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Hostile review of issue 37: a response's `Set-Cookie` is the session of the user it was sent
/// to, never something the cache hands to another.
@Suite("HostileReview: Set-Cookie is never served from the cache")
struct HostileReviewSetCookieTests: CacheSuite {
    let clock = CacheTestClock()

    /// Two clients (two users of one app, or one server app's users) share a cache; a public
    /// response carries a session cookie. The second client must not be handed the first one's
    /// session: a cookie middleware or the app would adopt it.
    @Test("a stored response never hands out the Set-Cookie of the response it was stored from")
    func setCookieIsNotServedFromTheCache() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.header("If-None-Match") != nil {
                return StreamedResponse(
                    statusCode: 304, headers: ["ETag": "\"v1\"", "Set-Cookie": "sid=session-\(number)"], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\"", "Set-Cookie": "sid=session-\(number)"],
                body: Data("config".utf8), url: request.url)
        }
        let cache = memoryCache()
        let alice = Client(configuration: Configuration(transport: origin, cache: cache))
        let bob = Client(configuration: Configuration(transport: origin, cache: cache))
        let first = try await alice.enqueue(CacheResource()).resume()
        #expect(first.headerValue(for: "Set-Cookie") == "sid=session-1", "the network's answer is passed on whole")
        let bobs = try await bob.enqueue(CacheResource()).resume()
        #expect(bobs.source == .cache)
        #expect(bobs.headerValue(for: "Set-Cookie") == nil, "Bob was handed Alice's session cookie")
        clock.advance(120)
        let revalidated = try await bob.enqueue(CacheResource()).resume()
        #expect(revalidated.source == .revalidated)
        let later = try await alice.enqueue(CacheResource()).resume()
        #expect(later.source == .cache && later.headerValue(for: "Set-Cookie") == nil, "a 304's cookie was stored")
    }
}
