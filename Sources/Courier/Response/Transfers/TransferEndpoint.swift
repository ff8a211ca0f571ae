import Foundation

/// An endpoint as another sends it for a transfer: the same request, plus some headers (a
/// download's `Range`, `If-Range` and `Accept-Encoding`) that replace the endpoint's own of the
/// same name, the body counted into an upload meter and the response body into a download
/// meter when someone observes their progress. Stages see ``base`` as the context's endpoint.
struct TransferEndpoint: EndpointWrapper {
    let base: any Requestable
    var addedHeaders: [HeaderItem] = []
    var uploadMeter: ProgressMeter?
    var downloadMeter: ProgressMeter?
    /// Replaces the endpoint's whole-exchange timeout (a download's, see ``BodyIdleTimeout``).
    var timeoutOverride: Duration?

    var timeout: Duration? { timeoutOverride ?? base.timeout }

    var middleware: [any Middleware] {
        guard let downloadMeter else { return base.middleware }
        return base.middleware + [DownloadCountingStage(meter: downloadMeter)]
    }

    var headerItems: [HeaderItem]? { headers(replacingWith: addedHeaders) }

    var body: RequestBody? {
        guard var body = base.body, let uploadMeter else { return base.body }
        body.uploadMeter = uploadMeter
        return body
    }
}
