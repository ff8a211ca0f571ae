import Foundation

/// What one call asks of ``Client/send(_:options:)`` beside its endpoint: how the body is
/// handled and what a download, an event stream or a progress observer changes in the request.
/// The endpoint itself goes through untouched, so stages see the caller's own
/// (``MiddlewareContext/endpoint``).
struct CallOptions: Sendable {
    /// The `Accept` value for what the caller expects, sent unless the endpoint or the
    /// configuration sets `Accept` (see ``Call/accept(for:preferred:decoders:)``).
    var accept: String?
    /// Whether the body is read whole, inside the retry loop and under
    /// ``TransportRequest/maximumResponseSize`` (``Call/resume()``). Otherwise the call returns
    /// once an accepted head has arrived, with its body streaming and no size limit on it
    /// (``Call/stream()``); a refused status's body is still read whole under the limit.
    var collectsBody = true
    /// Headers that replace the endpoint's: every endpoint header named in ``replacedHeaders``
    /// is dropped, then these are added (a download's `Range`, an event stream's `Accept`).
    var headers: [HeaderItem] = []
    /// Lower-cased names of the endpoint's headers to drop (see ``headers``).
    var replacedHeaders: Set<String> = []
    /// Replaces the endpoint's whole-exchange timeout (an event stream's connection lifetime, a
    /// download's wait for the head, see ``BodyIdleTimeout``).
    var timeout: Duration?
    /// The progress sequences of a call made with ``Call/withProgress()``, until a resume or a
    /// download turns them into the two meters below.
    var progress: CallProgress?
    /// Counts the request body as the transport reads it, when upload progress is observed.
    var uploadMeter: ProgressMeter?
    /// Counts the response body as it is read, when download progress is observed.
    var downloadMeter: ProgressMeter?
    /// The OpenAPI operation this call runs (CourierOpenAPI): it names the call's span, is a
    /// metrics dimension and is in its log lines.
    var operationID: String?
    /// A query already percent-encoded by generated code, sent as it is in place of the
    /// endpoint's query items (without the `?`).
    var encodedQuery: String?
    /// Set by ``Call/openWebSocket(_:)``: the request asks for an upgrade.
    var webSocket: WebSocketUpgrade?

    /// Counts this call's body and response into `progress`'s meters.
    mutating func observe(_ progress: CallProgress) {
        uploadMeter = progress.uploadMeter
        downloadMeter = progress.downloadMeter
    }

    /// Options that replace the endpoint's headers named like one of `headers` with them.
    mutating func replaceHeaders(with headers: [HeaderItem]) {
        self.headers = headers
        replacedHeaders = Set(headers.map { $0.name.lowercased() })
    }

    /// The headers the call sends for `endpoint`: its own, as ``headers`` and ``replacedHeaders``
    /// change them.
    func headerItems(of endpoint: some Requestable) -> [HeaderItem] {
        guard !replacedHeaders.isEmpty || !headers.isEmpty else { return endpoint.headerItems ?? [] }
        return (endpoint.headerItems ?? []).filter { !replacedHeaders.contains($0.name.lowercased()) } + headers
    }
}
