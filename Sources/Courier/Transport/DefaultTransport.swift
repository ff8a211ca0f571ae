package import Foundation

/// What ``Configuration/defaultTransport`` is: the platform's transport, unless the sending
/// task is inside a scope that replaces it (``DefaultTransportScope``).
///
/// The choice is made for each request, when it is sent, not when a configuration or a client
/// is created: a client made outside a test (an app's `static let shared = Client()`, a token
/// endpoint made at launch) still sends to the test's scope while the test runs, and to the
/// network outside it.
///
/// `package` so that the package's tests can reach the ``platform`` transport; not public: a
/// user sees `any Transport`, and CourierTesting sets the scope.
package struct DefaultTransport: Transport {
    #if AsyncHTTPClientLinked && canImport(FoundationNetworking)
        /// The transport sent through outside a scope.
        package typealias Platform = AsyncHTTPClientTransport
    #else
        /// The transport sent through outside a scope.
        package typealias Platform = URLSessionTransport
    #endif

    /// The one instance ``Configuration/defaultTransport`` returns.
    static let shared = DefaultTransport(platform: Platform.shared)

    /// The transport requests go to outside a scope: `AsyncHTTPClientTransport.shared` on Linux
    /// with the `AsyncHTTPClient` trait, `URLSessionTransport.shared` otherwise.
    package let platform: Platform

    /// `true`, as both platform transports: a scope's transport gets the same requests
    /// (`Accept-Encoding: gzip` included) as the network would.
    package var decodesGzip: Bool { true }

    /// Sends `request` to the scope's transport when the calling task is in one, else to
    /// ``platform``. One task-local read; nothing allocated.
    package func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        if let scoped = DefaultTransportScope.transport {
            return try await scoped.send(request)
        }
        return try await platform.send(request)
    }
}

extension DefaultTransport: WebSocketTransport {
    package func openWebSocket(_ request: TransportRequest, upgrade: WebSocketUpgrade) async throws(CourierError) -> StreamedResponse {
        try await upgrade.open(request, on: DefaultTransportScope.transport ?? platform)
    }
}

extension DefaultTransport: StoredCookieSource {
    /// The cookies of the transport a request of this task would be sent to.
    package func storedCookieHeader(for url: URL) -> String? {
        let transport: any Transport = DefaultTransportScope.transport ?? platform
        return (transport as? any StoredCookieSource)?.storedCookieHeader(for: url)
    }

    /// Whether the transport a request of this task would be sent to says which cookies it adds:
    /// a scope's transport of its own may not.
    package var saysWhichCookiesItAdds: Bool {
        let transport: any Transport = DefaultTransportScope.transport ?? platform
        return (transport as? any StoredCookieSource)?.saysWhichCookiesItAdds ?? false
    }
}

/// The task-local that replaces the default transport for the tasks that run inside a scope:
/// CourierTesting's `withStubbedNetwork` and `.stubbedNetwork` trait set it.
///
/// A task-local is inherited by child tasks (`async let`, task groups) and by `Task { }`
/// created inside the scope, not by `Task.detached`, so parallel tests each see their own.
package enum DefaultTransportScope {
    /// The transport ``DefaultTransport`` sends to instead of the platform's; `nil` outside
    /// any scope.
    @TaskLocal package static var transport: (any Transport)?
}
