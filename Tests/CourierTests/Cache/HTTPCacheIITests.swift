import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Issue 50: what the public HTTP cache test suite (cache-tests.fyi) found, as examples; the
/// suite's test ids are named on each.
@Suite("HTTP cache II: 304s without validators, what may be stored, and a 304 that changes Vary")
struct HTTPCacheIITests: CacheSuite {
    let clock = CacheTestClock()

    private func client(_ origin: CacheOrigin, cache: HTTPCache) -> Client {
        Client(configuration: Configuration(transport: origin, cache: cache))
    }

    /// cc-resp-no-cache-revalidate, cc-resp-no-cache-revalidate-fresh, cc-resp-must-revalidate-stale,
    /// cc-resp-immutable-stale, conditional-etag-strong-generate, conditional-etag-weak-generate-weak:
    /// the conditional request was built from one stored response, so a 304 without a validator
    /// updates and reuses it (RFC 9111 §4.3.3); it was thrown away and the request sent again.
    @Test(
        "a 304 without ETag or Last-Modified to a request built from one stored response reuses that response",
        arguments: [
            ["ETag": "\"v1\"", "Cache-Control": "no-cache"], ["ETag": "W/\"v1\"", "Cache-Control": "max-age=0"],
            ["Last-Modified": "Sat, 01 Jan 2000 00:00:00 GMT", "Cache-Control": "max-age=0, must-revalidate"],
        ])
    func aNotModifiedWithoutValidatorReusesTheOneStoredResponse(stored: [String: String]) async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.head.headerFields[.ifNoneMatch] != nil || request.head.headerFields[.ifModifiedSince] != nil {
                return StreamedResponse(statusCode: 304, headers: ["X-Checked": "yes"], url: request.url)
            }
            return StreamedResponse(statusCode: 200, headers: stored, body: Data("body \(number)".utf8), url: request.url)
        }
        let client = client(origin, cache: memoryCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let reused = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 2, "the 304 was thrown away and the request sent again")
        #expect(reused.source == .revalidated && text(reused) == "body 1")
        #expect(reused.headerValue(for: "X-Checked") == "yes")
    }

    @Test("a 304 whose strong validator contradicts the stored one is still not used: the request goes again")
    func aContradictingValidatorDiscards() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.head.headerFields[.ifNoneMatch] != nil {
                return StreamedResponse(statusCode: 304, headers: ["ETag": "\"v2\""], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"], body: Data("body \(number)".utf8), url: request.url)
        }
        let client = client(origin, cache: memoryCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let response = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 3 && text(response) == "body 3")
    }

    /// status-299-fresh, status-499-fresh, status-599-fresh: RFC 9111 §3 asks a cache to
    /// understand the status only under must-understand; a final status with explicit
    /// freshness is stored (it was refused).
    @Test("a final status the cache does not know, with explicit freshness, is stored; with must-understand it is not", arguments: [299, 499, 599])
    func anUnknownFinalStatusWithFreshnessIsStored(status: Int) async throws {
        let stored = CacheOrigin(status: status, headers: ["Cache-Control": "max-age=3600"])
        let cache = memoryCache()
        var endpoint = CacheResource()
        _ = await client(stored, cache: cache).enqueue(endpoint).result()
        _ = await client(stored, cache: cache).enqueue(endpoint).result()
        #expect(stored.count == 1, "\(status) with max-age was not stored")

        endpoint.pathString = "/understood"
        let refused = CacheOrigin(status: status, headers: ["Cache-Control": "max-age=3600, must-understand"])
        _ = await client(refused, cache: cache).enqueue(endpoint).result()
        _ = await client(refused, cache: cache).enqueue(endpoint).result()
        #expect(refused.count == 2, "\(status) with must-understand was stored")
    }

    /// httpbin's /cache: Last-Modified equal to Date and no freshness. Stored, stale at once,
    /// and revalidated with If-Modified-Since on the next call.
    @Test("a response with only a Last-Modified equal to its Date is stored and revalidated on use")
    func aValidatorWithZeroHeuristicFreshnessIsRevalidated() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: clock.now)
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.head.headerFields[.ifModifiedSince] == date {
                return StreamedResponse(statusCode: 304, headers: ["Date": date], url: request.url)
            }
            return StreamedResponse(statusCode: 200, headers: ["Date": date, "Last-Modified": date], body: Data("body \(number)".utf8), url: request.url)
        }
        let client = client(origin, cache: memoryCache())
        _ = try await client.enqueue(CacheResource()).resume()
        clock.advance(5)
        let second = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 2)
        #expect(origin.last?.head.headerFields[.ifModifiedSince] == date)
        #expect(second.source == .revalidated && text(second) == "body 1")
    }

    /// Hostile review: a 304 that adds Vary was merged into the stored headers but kept its old
    /// variant, so the response revalidated for alice was then served to bob from storage.
    @Test("a 304 that adds Vary re-keys the response under what the request sent: another user's request does not get it")
    func aNotModifiedThatAddsVaryRekeys() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.head.headerFields[.ifNoneMatch] != nil {
                return StreamedResponse(statusCode: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=600", "Vary": "X-User"], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"], body: Data("body \(number)".utf8), url: request.url)
        }
        let client = client(origin, cache: memoryCache())
        func call(_ user: String) -> CacheResource {
            var endpoint = CacheResource()
            endpoint.headerItems = [HeaderItem(name: "X-User", value: user)]
            return endpoint
        }
        _ = try await client.enqueue(call("alice")).resume()
        let alice = try await client.enqueue(call("alice")).resume()
        #expect(alice.source == .revalidated)
        let bob = try await client.enqueue(call("bob")).resume()
        #expect(bob.source == .network && text(bob) == "body 3", "bob got the response revalidated for alice")
    }

    @Test("a 304 that says Vary: * answers its call and is not kept")
    func aNotModifiedWithVaryStarIsNotKept() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.head.headerFields[.ifNoneMatch] != nil {
                return StreamedResponse(statusCode: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=600", "Vary": "*"], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"], body: Data("body \(number)".utf8), url: request.url)
        }
        let client = client(origin, cache: memoryCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let revalidated = try await client.enqueue(CacheResource()).resume()
        #expect(revalidated.source == .revalidated && text(revalidated) == "body 1")
        let next = try await client.enqueue(CacheResource()).resume()
        #expect(next.source == .network && origin.last?.head.headerFields[.ifNoneMatch] == nil)
    }
}
