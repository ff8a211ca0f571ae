import Foundation
import HTTPTypes

/// The retry stage: sends, and sends again while ``Configuration/retryPolicy`` says so, waiting
/// on ``Configuration/clock`` between attempts (a `Retry-After` date is read against that clock's
/// date when it tells one, see `DateTellingClock`). Below it, every attempt is authenticated and
/// observed anew; above it, users' middleware sees one request and one outcome.
///
/// Before the first attempt it adds the policy's idempotency key (when the policy asks for one),
/// so that every attempt carries the same key.
struct RetryStage: Stage {
    let policy: RetryPolicy
    let clock: any Clock<Duration>

    /// Whether the stage would only call `next` once under `policy`: no second attempt allowed
    /// and no idempotency key to add. ``Pipeline`` then leaves it out.
    static func passesThrough(_ policy: RetryPolicy) -> Bool {
        policy.maxAttempts <= 1 && !policy.generatesIdempotencyKey
    }

    var name: String { "retry" }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        var request = request
        if let key = policy.idempotencyKey(for: request), let name = HTTPField.Name(policy.idempotencyKeyHeader) {
            request.head.headerFields[name] = key
        }
        var attempt = 1
        while true {
            let outcome = await Attempt.$current.withValue(attempt) { [request] in
                do throws(CourierError) {
                    return Result<StreamedResponse, CourierError>.success(try await next(request, call))
                } catch {
                    return .failure(error)
                }
            }
            // The policy decides on the head alone.
            let head = outcome.map { Response(status: $0.status, headers: $0.headers, body: Data(), location: $0.location) }
            // A `Retry-After` date is read against the clock the delay is slept on.
            let now = (clock as? any DateTellingClock)?.date ?? Date()
            guard case .retry(let delay) = policy.decision(after: attempt, request: request, outcome: head, now: now) else {
                return try outcome.get()
            }
            // The response that is retried is not read: its transfer stops now.
            if case .success(let response) = outcome { response.body.cancel() }
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            if Task.isCancelled { throw .cancelled }
            attempt += 1
        }
    }
}

/// The attempt a stage below retry is working on, from 1.
enum Attempt {
    @TaskLocal static var current = 1
}
