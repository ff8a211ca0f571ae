import Foundation

/// A timeout that limits waiting, not working, for responses whose body may take long to arrive
/// (downloads): the head must arrive within ``timeout``, then no gap in the body may last longer
/// than ``timeout``; a body that keeps arriving is never cut, unless an optional total limit says so.
///
/// The transport's own timeout covers the whole exchange, body included, so the request is sent
/// with a long one (the total limit's remainder, or ``unlimited``); the head's limit is enforced
/// here, and the body's gaps by ``ResponseBody/stoppingWhenIdle(for:clock:url:)``. Both fail
/// with a ``TransportFailure/Kind/timedOut`` failure.
struct BodyIdleTimeout: Sendable {
    /// How long the head may take, and the longest gap in the body.
    let timeout: Duration
    /// The clock every wait is measured on.
    let clock: any Clock<Duration>

    /// The whole-exchange timeout given to the transport when nothing limits the whole transfer:
    /// 30 days, longer than any transfer, short enough for every transport's date arithmetic.
    static let unlimited: Duration = .seconds(30 * 24 * 3600)

    /// Sends a request with `send`, passing it the whole-exchange timeout to give the transport
    /// (`total` when given, else ``unlimited``), and returns the response once its head arrived,
    /// its body stopped when idle for ``timeout``.
    /// - Throws: a ``TransportFailure/Kind/timedOut`` failure when the head takes longer than
    ///   ``timeout`` (the request is cancelled); what `send` throws; ``CourierError/cancelled``
    ///   when the calling task is cancelled.
    func send(
        url: URL?, total: Duration? = nil, _ send: @escaping @Sendable (Duration) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        let transportTimeout = Swift.min(total ?? Self.unlimited, Self.unlimited)
        let timeout = self.timeout
        let clock = self.clock
        let elapsed = ElapsedTime(clock)
        // `nil`: the head's time ran out first.
        let first: Result<StreamedResponse, CourierError>? = await withTaskGroup(of: Result<StreamedResponse, CourierError>?.self) { group in
            group.addTask {
                do throws(CourierError) {
                    return .success(try await send(transportTimeout))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await elapsed.sleep(timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The other child ends at once; a response that came in after the head's time ran
            // out is dropped.
            while let late = await group.next() {
                if first == nil, case .success(let response)? = late { response.body.cancel() }
            }
            return first
        }
        if Task.isCancelled {
            if case .success(let response)? = first { response.body.cancel() }
            throw .cancelled
        }
        guard let first else {
            throw .transport(
                TransportFailure(
                    synthesizing: .timedOut, url: url?.redactedForErrors, message: "the response head did not arrive within \(timeout)"))
        }
        var response = try first.get()
        response.body = response.body.stoppingWhenIdle(for: timeout, clock: clock, url: response.url)
        return response
    }
}
