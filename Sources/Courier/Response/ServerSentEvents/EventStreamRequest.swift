import Foundation

/// What an ``EventSource``'s connection changes in the user's endpoint: the headers of an event
/// stream request and the source's connection timeout.
enum EventStreamRequest {
    /// The endpoint's headers this request replaces, lower-cased: the endpoint's own are dropped
    /// (its `Last-Event-ID` too when there is none to send).
    static let ownHeaders: Set<String> = ["accept", "cache-control", "last-event-id"]

    /// A streamed call whose whole-exchange timeout is `connectionTimeout` (an event stream is
    /// endless: that is the connection's lifetime), sending the endpoint's other headers, then
    /// `Accept: text/event-stream`, `Cache-Control: no-store` (WHATWG HTML: the request's cache
    /// mode is "no-store") and `Last-Event-ID` when there is one that can be a header value.
    ///
    /// An event ID may hold any character but NUL (`id: a\u{01}b` is valid for the parser), but
    /// a field value may not hold a control character (RFC 9110 §5.5). Such an ID is not sent:
    /// the request would be refused as invalid, which ended the stream for good. The server then
    /// answers as to a new subscriber. Not percent-encoded: the server would not recognise it.
    static func options(lastEventID: String?, connectionTimeout: Duration) -> CallOptions {
        var options = CallOptions()
        options.collectsBody = false
        options.timeout = connectionTimeout
        options.replacedHeaders = ownHeaders
        options.headers = [HeaderItem(name: "Accept", value: "text/event-stream"), HeaderItem(name: "Cache-Control", value: "no-store")]
        if let lastEventID = sendable(lastEventID) { options.headers.append(HeaderItem(name: "Last-Event-ID", value: lastEventID)) }
        return options
    }

    /// `id` when it can be sent as `Last-Event-ID`: not empty and without control characters.
    static func sendable(_ id: String?) -> String? {
        guard let id, !id.isEmpty, HeaderItem.isValidValue(id) else { return nil }
        return id
    }
}
