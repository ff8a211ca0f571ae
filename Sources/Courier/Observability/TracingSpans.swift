import Foundation
import HTTPTypes
import Tracing

/// Where a client's spans go, worked out once when the client is created; `nil` (see
/// ``init(tracer:transport:)``) when there is no tracer to report to, so that a call without
/// one does no tracing work at all.
struct ClientTracing: Sendable {
    /// Starts the spans.
    let tracer: any Tracer
    /// Writes the trace context into requests: the configured tracer, or the process's whole
    /// instrument (a `MultiplexInstrument` may propagate more than the tracer does).
    let instrument: any Instrument
    /// Whether Courier writes the trace context into requests: not when the transport writes
    /// its own (an async-http-client `HTTPClient` with a tracer of its own), which would add a
    /// second `traceparent`.
    let propagates: Bool
    /// The hosts trace context goes to (``Configuration/traceContextHosts``); `nil`: any host the
    /// caller addressed, and no redirect hop on another origin.
    let hosts: Set<String>?

    /// The configured tracer, else the process's (``InstrumentationSystem``); `nil` when that is
    /// a `NoOpTracer`.
    init?(tracer configured: (any Tracer)?, transport: any Transport, hosts: Set<String>? = nil) {
        self.hosts = hosts
        if let configured {
            tracer = configured
            instrument = configured
        } else {
            tracer = InstrumentationSystem.tracer
            instrument = InstrumentationSystem.instrument
        }
        if tracer is NoOpTracer { return nil }
        #if AsyncHTTPClientLinked && !os(watchOS)
            let wire: any Transport = (transport as? DefaultTransport)?.platform ?? transport
            propagates = !((wire as? AsyncHTTPClientTransport)?.clientTraces ?? false)
        #else
            propagates = true
        #endif
    }
}

/// The span of one call, from ``Client`` taking it to its outcome (every attempt, retry delays
/// and waits included), and the count of requests sent for it so far.
///
/// Its parent is the caller's `ServiceContext.current`; its children are the attempt spans
/// (``AttemptTrace``) and whatever spans users' middleware starts.
final class CallTrace: Sendable {
    let tracing: ClientTracing
    let span: any Span
    private let state = LockedState(State())

    private struct State {
        /// Requests handed to the transport so far, redirects included: the next one's
        /// `http.request.resend_count`.
        var sent = 0
        /// The call's request as built, and its attributes, which a request sent unchanged
        /// (the usual attempt) reuses rather than redacting its URL again.
        var described: (request: TransportRequest, attributes: SpanAttributes)?
    }

    /// Starts the span of a call to `method`, as a child of the caller's context: named by
    /// `operation`, the OpenAPI operation the call runs, when there is one.
    init(tracing: ClientTracing, method: String, operation: String? = nil) {
        self.tracing = tracing
        span = tracing.tracer.startSpan(
            operation ?? HTTPSemantics.spanName(method), context: ServiceContext.current ?? .topLevel, ofKind: .internal)
        if let operation { span.attributes[HTTPSemantics.operation] = operation }
    }

    /// Adds what the call's request says (method, redacted URL, server) to the span, once it
    /// is built.
    func describe(_ request: TransportRequest) {
        let attributes = HTTPSemantics.requestAttributes(
            method: request.head.method.rawValue, url: request.resolvedURL, authority: request.head.authority, redaction: request.redaction)
        state.withLock { $0.described = (request, attributes) }
        span.updateAttributes { $0.merge(attributes) }
    }

    /// Counts a request of this call as sent and returns its span attributes: the request's
    /// own, worked out by `make` unless it goes where the call's request as built goes, and
    /// `http.request.resend_count` from the second request on.
    func attributes(ofNextRequest request: TransportRequest?, make: () -> SpanAttributes) -> SpanAttributes {
        let (resends, described) = state.withLock { state in
            defer { state.sent += 1 }
            return (state.sent, state.described)
        }
        var attributes: SpanAttributes
        if let request, let described, request.head.method == described.request.head.method,
            request.sharesTargetAndRedaction(with: described.request)
        {
            attributes = described.attributes
        } else {
            attributes = make()
        }
        if resends > 0 {
            attributes[HTTPSemantics.resendCount] = resends
        }
        return attributes
    }

    /// Records what the ``HTTPCache`` made of the call (`courier.cache.result`).
    func recordCacheResult(_ result: CacheResult) {
        span.updateAttributes { $0[HTTPSemantics.cacheResult] = result.rawValue }
    }

    /// Names the stage whose own error failed the call (`courier.failed_stage`).
    func recordFailedStage(_ stage: String) {
        span.updateAttributes { $0[HTTPSemantics.failedStage] = stage }
    }

    /// Ends the span with the call's outcome: the final status code, or the failure.
    func end(statusCode: Int?, error: CourierError?) {
        let redaction = state.withLock { $0.described?.request.redaction } ?? .default
        HTTPSemantics.setOutcome(on: span, statusCode: statusCode, error: error, redaction: redaction)
        span.end()
    }
}

/// The client span of one request handed to the transport (an attempt, a 401 replay), and of
/// each redirect the transport follows for it: the real HTTP client spans of the OpenTelemetry
/// conventions, each with its own `traceparent` and `http.request.resend_count`.
///
/// Transports that follow redirects themselves find it in ``current`` and report each redirect
/// with ``redirected(statusCode:to:method:)``.
final class AttemptTrace: Sendable {
    /// The attempt being sent by the current task, for a transport following a redirect.
    @TaskLocal static var current: AttemptTrace?

    private let call: CallTrace
    /// Which query items and path parameters `url.full` hides.
    private let redaction: Redaction
    /// Whether Courier wrote the trace context into the request (it did not when the request
    /// already carried some, or the transport writes its own).
    private let injects: Bool
    /// The origin of the request the caller sent: a redirect hop to another one gets no trace
    /// context unless ``ClientTracing/hosts`` names its host.
    private let origin: RedirectPolicy.Origin?
    /// The span of the request in flight: the first one's, then each redirect's.
    private let span: LockedState<any Span>

    /// Starts the span of `request` and writes its trace context into the request's headers,
    /// unless the request already carries trace context: a `traceparent` a caller or middleware
    /// set is the caller's choice and is never replaced.
    init(call: CallTrace, request: inout TransportRequest) {
        let redaction = request.redaction
        self.call = call
        self.redaction = redaction
        let attributes = call.attributes(ofNextRequest: request) { [request] in
            HTTPSemantics.requestAttributes(
                method: request.head.method.rawValue, url: request.resolvedURL, authority: request.head.authority, redaction: redaction)
        }
        let span = Self.startSpan(call: call, method: request.head.method.rawValue, attributes: attributes)
        self.span = LockedState(span)
        let origin = request.resolvedURL.flatMap(RedirectPolicy.Origin.init)
        self.origin = origin
        guard call.tracing.propagates, Self.propagates(to: origin, hosts: call.tracing.hosts) else {
            injects = false
            return
        }
        let fields = Self.contextFields(of: span, instrument: call.tracing.instrument)
        injects = !fields.contains { request.head.headerFields[$0.name] != nil }
        if injects {
            request.head.headerFields.append(contentsOf: fields)
        }
    }

    /// The context of the span in flight, for stages and transports below.
    var context: ServiceContext {
        span.withLock { $0.context }
    }

    /// Whether trace context may go to `origin`: a host ``ClientTracing/hosts`` names, or any
    /// host when it is `nil`.
    private static func propagates(to origin: RedirectPolicy.Origin?, hosts: Set<String>?) -> Bool {
        guard let hosts else { return true }
        guard let origin else { return false }
        return hosts.contains { origin.matches(host: $0) }
    }

    /// Ends the span of the request that got a redirect and starts the next one's (a resend):
    /// - Returns: the trace-context fields the redirected request must carry in place of the
    ///   previous ones; none when Courier does not write trace context into this request. A
    ///   field with an empty value must be removed: the hop goes to another origin than the
    ///   caller's (and ``ClientTracing/hosts`` does not name it), so it gets no trace context.
    func redirected(statusCode: Int, to url: URL, method: String) -> [HTTPField] {
        let authority = URLComponents(url: url, resolvingAgainstBaseURL: true).map { components in
            (components.percentEncodedHost.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "") + (components.port.map { ":\($0)" } ?? "")
        }
        let attributes = call.attributes(ofNextRequest: nil) {
            HTTPSemantics.requestAttributes(method: method, url: url, authority: authority, redaction: redaction)
        }
        let next = Self.startSpan(call: call, method: method, attributes: attributes)
        let previous = span.withLock { current in
            defer { current = next }
            return current
        }
        HTTPSemantics.setOutcome(on: previous, statusCode: statusCode, error: nil)
        previous.end()
        guard injects else { return [] }
        let fields = Self.contextFields(of: next, instrument: call.tracing.instrument)
        let target = RedirectPolicy.Origin(url)
        let allowed = call.tracing.hosts == nil ? target != nil && target == origin : Self.propagates(to: target, hosts: call.tracing.hosts)
        return allowed ? fields : fields.map { HTTPField(name: $0.name, value: "") }
    }

    /// Ends the span of the request in flight with its outcome.
    func end(_ outcome: Result<StreamedResponse, CourierError>) {
        let span = span.withLock { $0 }
        switch outcome {
        case .success(let response): HTTPSemantics.setOutcome(on: span, statusCode: response.statusCode, error: nil)
        case .failure(let error): HTTPSemantics.setOutcome(on: span, statusCode: nil, error: error, redaction: redaction)
        }
        span.end()
    }

    /// Starts a client span for one request of `call`, a child of the call's span.
    private static func startSpan(call: CallTrace, method: String, attributes: SpanAttributes) -> any Span {
        let span = call.tracing.tracer.startSpan(HTTPSemantics.spanName(method), context: call.span.context, ofKind: .client)
        span.updateAttributes { $0.merge(attributes) }
        return span
    }

    /// The header fields `instrument` writes for `span`'s context (`traceparent`, `tracestate`,
    /// … whatever its propagation uses).
    private static func contextFields(of span: any Span, instrument: any Instrument) -> [HTTPField] {
        var fields = HTTPFields()
        instrument.inject(span.context, into: &fields, using: HTTPFieldsInjector())
        return Array(fields)
    }
}

/// Writes trace context into header fields, one field per key (a key that is not a valid field
/// name is skipped).
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}
