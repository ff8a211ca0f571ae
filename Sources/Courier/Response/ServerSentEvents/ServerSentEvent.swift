/// One event of a `text/event-stream` response (Server-Sent Events, WHATWG HTML §9.2).
///
/// ```swift
/// for try await event in client.enqueue(Notifications()).events() {
///     if event.type == "order-shipped" {
///         let order = try JSONDecoder().decode(Order.self, from: Data(event.data.utf8))
///         show(order)
///     }
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's name: the last `event` field's value, or `"message"` when it had none.
    public var type: String
    /// The event's `data` fields' values, joined by line feeds (`"a\nb"` for `data: a` and `data: b`).
    public var data: String
    /// The last event ID in effect when the event was dispatched: set by an `id` field of this
    /// event or of an earlier one, `nil` while none was set or after an empty `id` reset it. It is
    /// what a reconnection sends as `Last-Event-ID`.
    public var id: String?
    /// The reconnection time in effect when the event was dispatched: set by the last `retry`
    /// field of this event or of an earlier one, `nil` while the server sent none.
    public var retry: Duration?

    /// Creates an event, for tests and for code that relays events.
    public init(type: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
