import Foundation

/// An endpoint as another sends it for a transfer: the same request, plus some headers (a
/// download's `Range`, `If-Range` and `Accept-Encoding`) that replace the endpoint's own of the
/// same name, the body counted into an upload meter and the response body into a download
/// meter when someone observes their progress. Stages see ``base`` as the context's endpoint.
struct TransferEndpoint: Requestable {
    let base: any Requestable
    var addedHeaders: [HeaderItem] = []
    var uploadMeter: ProgressMeter?
    var downloadMeter: ProgressMeter?

    /// The caller's endpoint, under any number of wrappers.
    var declared: any Requestable { (base as? TransferEndpoint)?.declared ?? base }

    func baseURL() throws(CourierError) -> BaseURL { try base.baseURL() }
    func path() throws(CourierError) -> URLPath { try base.path() }
    var method: HTTPMethod { base.method }
    var queryItems: [QueryItem]? { base.queryItems }
    var queryParameters: QueryParameters? { base.queryParameters }
    var queryStringOptions: QueryStringFormattingOptions? { base.queryStringOptions }
    var requiresAuthorization: Bool { base.requiresAuthorization }
    var timeout: Duration? { base.timeout }
    var acceptableStatusCodes: Set<Int> { base.acceptableStatusCodes }
    var maximumResponseSize: Int? { base.maximumResponseSize }
    var responseDecoder: (any ResponseBodyDecoder)? { base.responseDecoder }
    var middleware: [any Middleware] {
        guard let downloadMeter else { return base.middleware }
        return base.middleware + [DownloadCountingStage(meter: downloadMeter)]
    }
    var constraints: [Constraint] { base.constraints }

    var headerItems: [HeaderItem]? {
        guard !addedHeaders.isEmpty else { return base.headerItems }
        let replaced = Set(addedHeaders.map { $0.name.lowercased() })
        return (base.headerItems ?? []).filter { !replaced.contains($0.name.lowercased()) } + addedHeaders
    }

    var body: RequestBody? {
        guard var body = base.body, let uploadMeter else { return base.body }
        body.uploadMeter = uploadMeter
        return body
    }
}
