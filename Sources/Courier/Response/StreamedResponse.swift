public import Foundation
public import HTTPTypes

/// A response whose head has arrived and whose body may still be arriving: what a
/// ``Transport`` returns and what ``Middleware`` passes up the pipeline.
///
/// Stages see the status and headers at once and can read, wrap or replace ``body``.
/// ``Call/resume()`` turns it into a ``Response`` by collecting the body up to
/// ``Configuration/maximumResponseSize``.
///
/// ```swift
/// struct RejectHTML: Middleware {
///     func intercept(_ request: TransportRequest, context: MiddlewareContext,
///                    next: Next) async throws(CourierError) -> StreamedResponse {
///         let response = try await next(request)
///         if response.headers[.contentType]?.hasPrefix("text/html") == true {
///             response.body.cancel()                       // stop the transfer: nobody reads it
///             return StreamedResponse(status: .badGateway, url: response.url)
///         }
///         return response
///     }
/// }
/// ```
public struct StreamedResponse: Sendable {
    /// The status, e.g. `.ok` (swift-http-types).
    public var status: HTTPResponse.Status
    /// The header fields (swift-http-types); names compare case-insensitively.
    public var headers: HTTPFields
    /// The body, as it arrives.
    public var body: ResponseBody
    /// The URL that was requested (before any redirect).
    public var url: URL {
        get { location.url }
        set { location = ResponseLocation(newValue) }
    }
    /// Where ``url`` comes from: a response from Courier's transports parses its request's URL
    /// only when it is read.
    var location: ResponseLocation
    /// Whether the network, the client's ``HTTPCache`` or a revalidated stored response answered.
    public var source: ResponseSource = .network

    /// Creates a response from a head and a body.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: ResponseBody = ResponseBody(), url: URL) {
        self.init(status: status, headers: headers, body: body, location: ResponseLocation(url))
    }

    /// A response from `location`: from a transport, its request's ``TransportRequest/location``.
    init(status: HTTPResponse.Status, headers: HTTPFields, body: ResponseBody, location: ResponseLocation) {
        self.status = status
        self.headers = headers
        self.body = body
        self.location = location
    }

    /// A response with a whole body: `response`'s head and bytes.
    public init(_ response: Response) {
        self.init(status: response.status, headers: response.headers, body: ResponseBody(response.body), location: response.location)
        source = response.source
    }

    /// A response with a whole body from plain values, for the package's tests.
    package init(statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL) {
        self.init(Response(statusCode: statusCode, headers: headers, body: body, url: url))
    }

    /// The numeric status code, e.g. `200`.
    public var statusCode: Int { status.code }

    /// The value of the header `name` (case-insensitive), with repeated fields joined by `", "`;
    /// `nil` if absent or if `name` is not a valid header name.
    package func headerValue(for name: String) -> String? {
        headers.value(named: name)
    }

    /// Reads the body and returns the whole response.
    /// - Parameter limit: the most body bytes to accept, or `nil` for no limit (see
    ///   ``ResponseBody/collect(upTo:)``).
    /// - Throws: ``CourierError/transport(_:)`` with a ``TransportFailure/Kind/responseTooLarge``
    ///   failure past `limit`, or whatever reading the body throws.
    public func collect(upTo limit: Int?) async throws(CourierError) -> Response {
        let data = try await body.collect(upTo: limit, url: url)
        var response = Response(status: status, headers: headers, body: data, location: location)
        response.source = source
        return response
    }

    /// This response with its body whole and no longer than `limit`: where a call enforces
    /// ``TransportRequest/maximumResponseSize`` (in the transport stage for a call that collects,
    /// after the stages for a body a middleware replaced, and on a refused status's body). A
    /// body that is whole already is only measured, without a suspension.
    @inline(__always)
    func whole(upTo limit: Int?) async throws(CourierError) -> StreamedResponse {
        if try body.wholeData(upTo: limit, url: url) != nil { return self }
        var response = self
        response.body = ResponseBody(try await body.collect(upTo: limit, url: url))
        return response
    }

    /// The response, whose body is whole (``whole(upTo:)``).
    var collected: Response {
        var response = Response(status: status, headers: headers, body: body.wholeData ?? Data(), location: location)
        response.source = source
        return response
    }
}

extension StreamedResponse {
    /// Whether a response with `status` has no body, whatever its `Content-Length` says: 1xx,
    /// 204 and 304 (RFC 9110 §6.4.1; a response to `HEAD` has none either).
    static func carriesNoBody(status: Int) -> Bool {
        (100...199).contains(status) || status == 204 || status == 304
    }
}
