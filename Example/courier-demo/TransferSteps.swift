import Courier
import Foundation

/// Transfers against the demo API: a Server-Sent Events stream that survives a dropped
/// connection, and a download to disk that resumes after one.
extension Demo {
    /// Reads the event stream to its end: the server ends the first stream after event 3,
    /// the source reconnects with `Last-Event-ID: 3` after the server's `retry: 100`, gets events
    /// 4–6, and the next reconnection is answered 204 (no more events), which ends the loop.
    func serverSentEvents() async -> Outcome {
        let started = ContinuousClock.now
        var ids: [String] = []
        do {
            for try await event in client.enqueue(StreamEvents(api: api)).events() where event.type == "progress" {
                ids.append(event.id ?? "?")
            }
        } catch {
            return unexpected(error, expected: "six events over two connections")
        }
        guard ids == ["1", "2", "3", "4", "5", "6"] else {
            return .failed("expected events 1…6 once each, in order, got \(ids)")
        }
        return .passed("events 1–3, the stream closed, events 4–6 after Last-Event-ID: 3, then 204; \(Self.format(ContinuousClock.now - started))")
    }
}
