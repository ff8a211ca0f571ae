import Foundation

/// The endpoint of an ``EventSource``'s connection: the user's endpoint as it is, with the
/// headers of an event stream request and the source's connection timeout.
struct EventStreamEndpoint: EndpointWrapper {
    let base: any Requestable
    let lastEventID: String?
    let connectionTimeout: Duration

    /// An event stream is endless: the whole-exchange timeout is the connection's lifetime.
    var timeout: Duration? { connectionTimeout }

    /// The headers this endpoint sets, lower-cased: the base endpoint's own are dropped (its
    /// `Last-Event-ID` too when there is none to send).
    private static let ownHeaders: Set<String> = ["accept", "cache-control", "last-event-id"]

    /// The base endpoint's other headers, then `Accept: text/event-stream`, `Cache-Control:
    /// no-store` (WHATWG HTML: the request's cache mode is "no-store") and `Last-Event-ID` when
    /// there is one that can be a header value.
    ///
    /// An event ID may hold any character but NUL (`id: a\u{01}b` is valid for the parser), but
    /// a field value may not hold a control character (RFC 9110 §5.5). Such an ID is not sent:
    /// the request would be refused as invalid, which ended the stream for good. The server then
    /// answers as to a new subscriber. Not percent-encoded: the server would not recognise it.
    var headerItems: [HeaderItem]? {
        var items = (base.headerItems ?? []).filter { !Self.ownHeaders.contains($0.name.lowercased()) }
        items.append(HeaderItem(name: "Accept", value: "text/event-stream"))
        items.append(HeaderItem(name: "Cache-Control", value: "no-store"))
        if let lastEventID = Self.sendable(lastEventID) { items.append(HeaderItem(name: "Last-Event-ID", value: lastEventID)) }
        return items
    }

    /// `id` when it can be sent as `Last-Event-ID`: not empty and without control characters.
    static func sendable(_ id: String?) -> String? {
        guard let id, !id.isEmpty, HeaderItem.isValidValue(id) else { return nil }
        return id
    }
}
