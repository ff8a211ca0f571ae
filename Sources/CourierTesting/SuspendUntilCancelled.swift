/// Suspends until the calling task is cancelled, then throws `CancellationError`.
///
/// For a fake transport, a server handler or a constraint that must never answer on its own:
/// no timer runs, so nothing ends it but the cancellation the test is about (or the test's end).
///
/// ```swift
/// struct NeverAnswers: Transport {
///     func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
///         do { try await suspendUntilCancelled() } catch { throw .cancelled }
///         throw .cancelled
///     }
/// }
/// ```
/// - Throws: `CancellationError`, always, once the task is cancelled (at once if it already is).
public func suspendUntilCancelled() async throws {
    let (never, continuation) = AsyncStream.makeStream(of: Never.self)
    await withTaskCancellationHandler {
        for await _ in never {}
    } onCancel: {
        continuation.finish()
    }
    throw CancellationError()
}
