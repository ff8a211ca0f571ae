import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A 307/308 of a request with a stream body: Apple's URLSession may propose the redirect without
/// the stream and ask for it again through `needNewBodyStream`, which gives a replayable body.
/// What the proposal does not show, the original request does: the body still crosses only to the
/// same origin, or with `followSendingBodyToOtherOrigins`.
@Suite("Apple platforms: a redirected stream body stays on its origin")
struct RedirectStreamBodyTests {
    /// A `POST` with a stream body to `https://api.example.com/upload`.
    static func original() -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("refresh_token=RT&client_secret=S".utf8))
        return request
    }

    /// What Apple's URLSession proposes for a 307/308: the method kept, no body, no stream.
    static func proposal(_ url: String, method: String = "POST") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        return request
    }

    @Test(
        "a method-keeping redirect of a stream body follows only where the body may go",
        arguments: [
            ("https://api.example.com/elsewhere", RedirectMode.follow, true),
            ("https://other.example.com/upload", .follow, false),
            ("https://api.example.com:8443/upload", .follow, false),
            ("https://other.example.com/upload", .followSendingBodyToOtherOrigins, true),
            ("https://api.example.com/elsewhere", .never, false),
        ])
    func streamBodiesStayOnTheOrigin(target: String, mode: RedirectMode, follows: Bool) {
        let original = Self.original()
        let proposed = Self.proposal(target)
        #expect(RedirectPolicy.resendsStreamBody(proposed, after: original))
        #expect(RedirectPolicy.canFollow(proposed, after: original, from: original.url, mode: mode, dropsBodies: false) == follows)
    }

    /// Where URLSession sends a redirected body empty (Linux), a stream body is never followed,
    /// even on its origin.
    @Test func whereRedirectedBodiesAreDroppedAStreamBodyIsNotFollowed() {
        let original = Self.original()
        let proposed = Self.proposal("https://api.example.com/elsewhere")
        #expect(!RedirectPolicy.canFollow(proposed, after: original, from: original.url, mode: .follow, dropsBodies: true))
        #expect(
            !RedirectPolicy.canFollow(
                proposed, after: original, from: original.url, mode: .followSendingBodyToOtherOrigins, dropsBodies: true))
    }

    /// A redirect that turns the request into a `GET` (303, or 301/302 of a POST) sends no body:
    /// followed anywhere the scheme allows, as before.
    @Test func aRedirectThatBecomesAGetSendsNoBodyAndIsFollowed() {
        let original = Self.original()
        let proposed = Self.proposal("https://other.example.com/done", method: "GET")
        #expect(!RedirectPolicy.resendsStreamBody(proposed, after: original))
        #expect(RedirectPolicy.canFollow(proposed, after: original, from: original.url, mode: .follow, dropsBodies: false))
        #expect(RedirectPolicy.canFollow(proposed, after: original, from: original.url, mode: .follow, dropsBodies: true))
    }

    /// A request without a stream body is judged by the proposal alone, as before.
    @Test func withoutAStreamBodyTheProposalDecides() {
        var original = Self.original()
        original.httpBodyStream = nil
        let proposed = Self.proposal("https://other.example.com/upload")
        #expect(!RedirectPolicy.resendsStreamBody(proposed, after: original))
        #expect(RedirectPolicy.canFollow(proposed, after: original, from: original.url, mode: .follow, dropsBodies: false))
        #expect(!RedirectPolicy.resendsStreamBody(proposed, after: nil))
    }
}
