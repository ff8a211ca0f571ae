import Foundation

/// The endpoint of an ``EventSource``'s connection: the user's endpoint as it is, with the
/// headers of an event stream request and the source's connection timeout.
struct EventStreamEndpoint: Requestable {
    let base: any Requestable
    let lastEventID: String?
    let connectionTimeout: Duration

    /// The headers this endpoint sets, lower-cased: the base endpoint's own are replaced.
    private static let ownHeaders: Set<String> = ["accept", "cache-control", "last-event-id"]

    func baseURL() throws(CourierError) -> BaseURL { try base.baseURL() }
    func path() throws(CourierError) -> URLPath { try base.path() }
    var method: HTTPMethod { base.method }
    var queryItems: [QueryItem]? { base.queryItems }
    var queryParameters: QueryParameters? { base.queryParameters }
    var queryStringOptions: QueryStringFormattingOptions? { base.queryStringOptions }
    var body: RequestBody? { base.body }
    var requiresAuthorization: Bool { base.requiresAuthorization }
    var acceptableStatusCodes: Set<Int> { base.acceptableStatusCodes }
    var maximumResponseSize: Int? { base.maximumResponseSize }
    var responseDecoder: (any ResponseBodyDecoder)? { base.responseDecoder }
    var middleware: [any Middleware] { base.middleware }
    var constraints: [Constraint] { base.constraints }

    /// An event stream is endless: the whole-exchange timeout is the connection's lifetime.
    var timeout: Duration? { connectionTimeout }

    /// The base endpoint's headers, then `Accept: text/event-stream`, `Cache-Control: no-store`
    /// (WHATWG HTML: the request's cache mode is "no-store") and `Last-Event-ID` when there is one.
    var headerItems: [HeaderItem]? {
        var items = (base.headerItems ?? []).filter { !Self.ownHeaders.contains($0.name.lowercased()) }
        items.append(HeaderItem(name: "Accept", value: "text/event-stream"))
        items.append(HeaderItem(name: "Cache-Control", value: "no-store"))
        if let lastEventID { items.append(HeaderItem(name: "Last-Event-ID", value: lastEventID)) }
        return items
    }
}
