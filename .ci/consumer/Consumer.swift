// A user of Courier, compiled from outside the package by .ci/consumer.py: `import Courier` alone,
// the README's first call, and switches over the enums that may grow, each with its
// `@unknown default`.
import Courier
import Foundation

struct User: Decodable, Sendable {
    var id: Int
}

struct GetUser: Requestable {
    let id: Int
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", String(id)]) }
}

/// A middleware as the guides write one: `HTTPField` comes with `import Courier`.
struct RequestID: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var request = request
        request.head.headerFields[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
        return try await next(request)
    }
}

func fetch(_ client: Client) async -> String {
    do {
        let user = try await client.enqueue(GetUser(id: 42)).resume(expecting: User.self)
        return "user \(user.id)"
    } catch .response(let response) where response.statusCode == 404 {
        return "not found"
    } catch {
        return explain(error)
    }
}

func explain(_ error: CourierError) -> String {
    switch error {
    case .invalidRequest(let failure):
        switch failure {
        case .invalidHost(let host, _): return "bad host \(host)"
        case .encodingFailed(let reason, _): return reason
        default: return failure.description
        }
    case .transport(let failure):
        switch failure.kind {
        case .timedOut: return "timed out"
        case .cannotConnect, .dnsFailure: return "offline"
        default: return failure.description
        }
    case .cancelled:
        return "cancelled"
    default:
        return error.description
    }
}

func describe(_ event: AuthEvent) -> String {
    switch event {
    case .refreshed: return "refreshed"
    case .refreshFailed(let failure): return "refresh failed: \(failure)"
    case .credentialReset, .signedOut: return "signed out"
    case .storeFailed(let error): return "store failed: \(type(of: error))"
    @unknown default: return "another event"
    }
}
