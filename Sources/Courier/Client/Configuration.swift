public import Foundation
public import Logging

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
    /// The wire. Default: ``URLSessionTransport/shared``.
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
    /// Where Courier logs: one debug line per call. Default: a logger that discards everything.
    public var logger: Logger

    /// Creates a configuration; every parameter has a default.
    public init(
        transport: any Transport = URLSessionTransport.shared,
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder(),
        timeout: Duration = .seconds(60),
        headers: [HeaderItem] = [],
        logger: Logger = Logger(label: "courier", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.transport = transport
        self.decoder = decoder
        self.encoder = encoder
        self.timeout = timeout
        self.headers = headers
        self.logger = logger
    }
}
