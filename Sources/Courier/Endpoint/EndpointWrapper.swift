import Foundation

/// An endpoint Courier sends in place of the caller's (an event stream's connection, a
/// download's range request): the caller's endpoint, ``base``, with a few members changed.
///
/// Every member is forwarded to ``base`` unless the wrapper declares its own, so a member added
/// to ``Requestable`` is forwarded by every wrapper at once. Stages of the pipeline see the
/// caller's endpoint (``declared``) in ``MiddlewareContext/endpoint``, never a wrapper.
protocol EndpointWrapper: Requestable {
    /// The endpoint this one changes.
    var base: any Requestable { get }
}

extension EndpointWrapper {
    /// The caller's own endpoint, under any number of wrappers.
    var declared: any Requestable { (base as? any EndpointWrapper)?.declared ?? base }

    func baseURL() throws(CourierError) -> BaseURL { try base.baseURL() }
    func path() throws(CourierError) -> URLPath { try base.path() }
    var method: HTTPMethod { base.method }
    var headerItems: [HeaderItem]? { base.headerItems }
    var queryItems: [QueryItem]? { base.queryItems }
    var queryParameters: QueryParameters? { base.queryParameters }
    var queryStringOptions: QueryStringFormattingOptions? { base.queryStringOptions }
    var body: RequestBody? { base.body }
    var requiresAuthorization: Bool { base.requiresAuthorization }
    var timeout: Duration? { base.timeout }
    var acceptableStatusCodes: Set<Int> { base.acceptableStatusCodes }
    var maximumResponseSize: Int? { base.maximumResponseSize }
    var redirectMode: RedirectMode { base.redirectMode }
    var responseDecoder: (any ResponseBodyDecoder)? { base.responseDecoder }
    var middleware: [any Middleware] { base.middleware }
    var constraints: [Constraint] { base.constraints }

    /// The base endpoint's headers without those named like one of `replacements`, then
    /// `replacements`.
    func headers(replacingWith replacements: [HeaderItem]) -> [HeaderItem]? {
        guard !replacements.isEmpty else { return base.headerItems }
        let replaced = Set(replacements.map { $0.name.lowercased() })
        return (base.headerItems ?? []).filter { !replaced.contains($0.name.lowercased()) } + replacements
    }
}
