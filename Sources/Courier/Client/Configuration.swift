public import CoreMetrics
public import Foundation
public import Logging
public import Tracing

/// How a ``Client`` sends requests and reads responses.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.timeout = .seconds(10)
/// configuration.headers = [.accept("application/json")]
/// configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
/// let client = Client(configuration: configuration)
/// ```
public struct Configuration: Sendable {
    /// The wire. Default: ``Configuration/defaultTransport``: async-http-client on Linux,
    /// URLSession on Apple platforms, a test scope's stub inside one.
    public var transport: any Transport
    /// Decodes JSON responses in ``Call/resume(expecting:)``. Default: a plain `JSONDecoder`.
    public var decoder: JSONDecoder
    /// Encodes ``RequestBody/json(_:encoder:)`` bodies that bring no encoder of their own.
    /// Default: a plain `JSONEncoder`.
    public var encoder: JSONEncoder
    /// How long a request may take, unless its endpoint says otherwise. Default: 60 seconds.
    public var timeout: Duration
    /// Headers sent with every request; an endpoint's header of the same name replaces them.
    /// Default: none.
    public var headers: [HeaderItem]
    /// How query strings and form bodies are formatted, unless an endpoint
    /// (``Requestable/queryStringOptions``) or a form body says otherwise.
    /// Default: `QueryStringFormattingOptions()` (indexed arrays, subscripted dictionaries,
    /// space as `%20`, `+` as `%2B`, reserved characters left as they are).
    ///
    /// ```swift
    /// configuration.queryStringOptions.arrayFormat = .bracketed  // ids%5B%5D=1&ids%5B%5D=2
    /// ```
    public var queryStringOptions: QueryStringFormattingOptions
    /// Where Courier logs: one debug line per call. Default: a logger that discards everything.
    public var logger: Logger
    /// The tracer that receives a span per call and a span per request sent (each retry, 401
    /// replay and redirect), and whose propagation writes the trace context (W3C `traceparent`
    /// with an OpenTelemetry tracer) into every request. Default: `nil`, the process's: the
    /// tracer bootstrapped with `InstrumentationSystem.bootstrap(_:)` (or bound with
    /// `withTracer(_:_:)`) **when the client is created**.
    ///
    /// With no tracer bootstrapped, or with `NoOpTracer()` here, a call does no tracing work at
    /// all. Set a tracer here to trace one client only (a test's `InMemoryTracer`), or
    /// `NoOpTracer()` to keep one client out of traces (spans, attributes and propagation: the
    /// Observability guide).
    ///
    /// ```swift
    /// import Tracing
    /// configuration.tracer = NoOpTracer()   // this client's calls are not traced
    /// ```
    public var tracer: (any Tracer)?
    /// The hosts that receive trace context (`traceparent`, `tracestate`, or whatever the
    /// instrument propagates), as ``authorizedHosts`` names them (no port; IPv6 with or without
    /// brackets). `nil` (the default): every host a call addresses, but never a redirect hop on
    /// another origin, which the server chose. A set: only its hosts, redirect hops included;
    /// empty: none. Spans are recorded either way.
    ///
    /// A trace ID is an identifier shared by every request of an operation: a third party that
    /// receives it can tell which of its requests belong together. Keep it to your own services:
    ///
    /// ```swift
    /// configuration.traceContextHosts = ["api.example.com", "auth.example.com"]
    /// ```
    public var traceContextHosts: Set<String>? = nil
    /// The factory of the metrics each call records: `courier_requests_total`,
    /// `courier_request_duration_seconds` and `courier_requests_in_flight` (see the
    /// Observability guide). Default: `nil`, the process's: `MetricsSystem.factory` as
    /// bootstrapped (or bound with `withMetricsFactory(_:_:)`) **when the client is created**.
    ///
    /// With no metrics backend bootstrapped, or with `NOOPMetricsHandler.instance` here, a call
    /// records nothing and costs nothing.
    ///
    /// ```swift
    /// import Metrics
    ///
    /// configuration.metricsFactory = NOOPMetricsHandler.instance   // this client records no metrics
    /// ```
    public var metricsFactory: (any MetricsFactory)?
    /// How endpoints that require authorization are authenticated. Default: ``Authentication/none``.
    public var authentication: Authentication
    /// The hosts, or origins, that may receive credentials. Default: none.
    ///
    /// - A host (`"api.example.com"`, `"127.0.0.1"`, `"[::1]"`, compared case-insensitively)
    ///   authorizes it at the scheme and port its endpoint's ``BaseURL`` declares.
    /// - An origin (`"https://api.example.com"`, `"http://127.0.0.1:8080"`) authorizes exactly that
    ///   scheme, host and port (the default port when none is written), whatever the endpoint
    ///   declared: list origins when a middleware points requests at another port or scheme.
    ///
    /// The check runs on the request actually being signed, for every attempt, after the
    /// middleware: a middleware that rewrites a request to another host, port or scheme sends it
    /// without credentials only if that origin is listed too; otherwise the call fails.
    ///
    /// There is deliberately no "any host" default: a credential goes only where the app said it
    /// may, so an endpoint pointed at another host (a CDN, a partner API, a typo) can never leak
    /// it. A call that requires authorization for an unlisted host fails with
    /// ``AuthenticationFailure/hostNotAuthorized(host:)`` and sends nothing.
    public var authorizedHosts: Set<String>
    /// Decoders for media types other than JSON, consulted by `Content-Type` in
    /// ``Call/resume(expecting:)`` (JSON always uses ``decoder``). Default: none.
    ///
    /// ```swift
    /// import CourierXML
    ///
    /// configuration.responseDecoders = [XMLBodyDecoder()]
    /// ```
    public var responseDecoders: [any ResponseBodyDecoder]
    /// The `User-Agent` header sent with every request unless a header sets one; `nil` leaves it
    /// to the transport. Default: ``defaultUserAgent``, e.g. `Courier/0.4.0 (Linux 6.1.0)`.
    public var userAgent: String?

    /// What Courier hides wherever it prints a request: header values, query items and form or
    /// JSON fields that carry secrets. Default: ``Redaction/default``.
    public var redaction: Redaction

    /// When and how often a request is sent again (see ``RetryPolicy``). Default:
    /// ``RetryPolicy/none``: nothing is retried unless you ask for it.
    ///
    /// ```swift
    /// configuration.retryPolicy = .default   // 3 attempts, idempotent requests, full-jitter backoff
    /// ```
    public var retryPolicy: RetryPolicy
    /// The clock retry delays are measured on. Default: `ContinuousClock()`; tests inject one
    /// that takes no real time. A server's `Retry-After` date is read against the system's date,
    /// or against the clock's own when it tells one: CourierTesting's `TestClock` does, so a test
    /// that moves the clock also moves the date a `Retry-After` date is measured from.
    public var clock: any Clock<Duration>

    /// The most bytes of response body a call reads, counted after decompression, unless its
    /// endpoint (``Requestable/maximumResponseSize``) says otherwise; `nil` for no limit.
    /// Default: 32 MiB.
    ///
    /// ``Call/resume()`` and ``Call/resume(expecting:)`` hold the whole body in memory, and a
    /// server decides how big it is: a 200 KB gzip body can inflate to 200 MB. Past the limit the
    /// transport stops reading and the call fails with ``CourierError/transport(_:)`` of kind
    /// ``TransportFailure/Kind/responseTooLarge``, which is never retried.
    ///
    /// ```swift
    /// configuration.maximumResponseSize = 256 << 20   // 256 MiB for a bulk-export API
    /// ```
    public var maximumResponseSize: Int?

    /// 32 MiB: far above any JSON or XML document an API answers with, far below what would
    /// strain a phone or a server handling many calls at once.
    static let defaultMaximumResponseSize = 32 << 20

    /// Middleware every request passes through, outermost first, before the endpoint's own
    /// (see ``Middleware`` for the order). Default: none.
    public var middleware: [any Middleware]

    /// The HTTP cache that `GET` calls use, shared by every client configured with it; `nil`
    /// (the default) stores nothing. See ``HTTPCache`` and ``Requestable/cachePolicy``.
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.cache = HTTPCache(capacity: 20 << 20)
    /// ```
    public var cache: HTTPCache?

    /// `Courier/<version> (<operating system> <version>)`.
    public static let defaultUserAgent: String = {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
            let system = "Linux"
        #elseif os(macOS)
            let system = "macOS"
        #elseif os(iOS)
            let system = "iOS"
        #elseif os(tvOS)
            let system = "tvOS"
        #elseif os(watchOS)
            let system = "watchOS"
        #elseif os(visionOS)
            let system = "visionOS"
        #elseif os(Windows)
            let system = "Windows"
        #else
            let system = "unknown"
        #endif
        return "Courier/\(CourierLibrary.version) (\(system) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion))"
    }()

    /// The transport a configuration uses unless told otherwise, shared by the whole process.
    /// It sends through:
    /// - on Linux (and other platforms without Apple's URLSession), with the `AsyncHTTPClient`
    ///   package trait (on by default), ``AsyncHTTPClientTransport/shared``: several times the
    ///   throughput of corelibs URLSession, backpressure both ways, one stalled upload never holds
    ///   up other calls, and TLS pinning;
    /// - on Apple platforms, and on Linux builds without the trait, ``URLSessionTransport/shared``:
    ///   the system's networking (proxies, cellular policies, App Transport Security).
    ///
    /// Inside a test scope of `CourierTesting` (`withStubbedNetwork { … }`, or the
    /// `.stubbedNetwork` trait), it sends to the scope's `NetworkStub` instead, never to the
    /// network. That is decided for each request when it is sent, so it also holds for clients
    /// and token endpoints created outside the test. Not itself one of the two transport types
    /// above: it forwards to them.
    public static var defaultTransport: any Transport {
        DefaultTransport.shared
    }

    /// Creates a configuration; every parameter has a default.
    public init(
        transport: any Transport = Configuration.defaultTransport,
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder(),
        timeout: Duration = .seconds(60),
        headers: [HeaderItem] = [],
        queryStringOptions: QueryStringFormattingOptions = QueryStringFormattingOptions(),
        logger: Logger = Logger(label: "courier", factory: { _ in SwiftLogNoOpLogHandler() }),
        tracer: (any Tracer)? = nil,
        metricsFactory: (any MetricsFactory)? = nil,
        authentication: Authentication = .none,
        authorizedHosts: Set<String> = [],
        responseDecoders: [any ResponseBodyDecoder] = [],
        userAgent: String? = Configuration.defaultUserAgent,
        middleware: [any Middleware] = [],
        redaction: Redaction = .default,
        retryPolicy: RetryPolicy = .none,
        clock: any Clock<Duration> = ContinuousClock(),
        maximumResponseSize: Int? = 32 << 20,
        cache: HTTPCache? = nil
    ) {
        self.transport = transport
        self.decoder = decoder
        self.encoder = encoder
        self.timeout = timeout
        self.headers = headers
        self.queryStringOptions = queryStringOptions
        self.logger = logger
        self.tracer = tracer
        self.metricsFactory = metricsFactory
        self.authentication = authentication
        self.authorizedHosts = authorizedHosts
        self.responseDecoders = responseDecoders
        self.userAgent = userAgent
        self.middleware = middleware
        self.redaction = redaction
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.maximumResponseSize = maximumResponseSize
        self.cache = cache
    }
}
