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
@dynamicMemberLookup
public struct StreamedResponse: Sendable {
    /// The status, headers, URL and source, shared with ``Response``.
    public var head: ResponseHead
    /// The body, as it arrives.
    public var body: ResponseBody
    /// How the call that received it decodes (``DecodingContext``); `nil` for one made by hand.
    var decoding: DecodingContext?

    /// Creates a response from a head and a body.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: ResponseBody = ResponseBody(), url: URL) {
        self.init(head: ResponseHead(status: status, headers: headers, location: ResponseLocation(url)), body: body)
    }

    /// A response from `location`: from a transport, its request's ``TransportRequest/location``.
    init(status: HTTPResponse.Status, headers: HTTPFields, body: ResponseBody, location: ResponseLocation) {
        self.init(head: ResponseHead(status: status, headers: headers, location: location), body: body)
    }

    /// A response of `head` and `body`.
    @inline(__always)
    init(head: ResponseHead, body: ResponseBody) {
        self.head = head
        self.body = body
    }

    /// A response with a whole body: `response`'s head and bytes.
    public init(_ response: Response) {
        self.init(head: response.head, body: ResponseBody(response.body))
    }

    /// A response with a whole body from plain values, for the package's tests.
    package init(statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL) {
        self.init(Response(statusCode: statusCode, headers: headers, body: body, url: url))
    }

    /// A member of ``head`` that can be set, as the response's own: `response.status = .ok`.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ResponseHead, Value>) -> Value {
        @inline(__always) get { head[keyPath: keyPath] }
        @inline(__always) _modify { yield &head[keyPath: keyPath] }
    }

    /// A member of ``head`` that is only read, as the response's own: `response.statusCode`.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<ResponseHead, Value>) -> Value {
        @inline(__always) get { head[keyPath: keyPath] }
    }

    /// The value of the header `name` (case-insensitive), with repeated fields joined by `", "`;
    /// `nil` if absent or if `name` is not a valid header name.
    package func headerValue(for name: String) -> String? {
        head.headers.value(named: name)
    }

    /// Reads the body and returns the whole response.
    /// - Parameter limit: the most body bytes to accept, or `nil` for no limit (see
    ///   ``ResponseBody/collect(upTo:)``).
    /// - Throws: ``CourierError/transport(_:)`` with a ``TransportFailure/Kind/responseTooLarge``
    ///   failure past `limit`, or whatever reading the body throws.
    public func collect(upTo limit: Int?) async throws(CourierError) -> Response {
        let data = try await body.collect(upTo: limit, url: head.url)
        return Response(head: head, body: data)
    }

    /// This response with its body whole and no longer than `limit`: where a call enforces
    /// ``TransportRequest/maximumResponseSize`` (in the transport stage for a call that collects,
    /// after the stages for a body a middleware replaced, and on a refused status's body). A
    /// body that is whole already is only measured, without a suspension.
    @inline(__always)
    func whole(upTo limit: Int?) async throws(CourierError) -> StreamedResponse {
        if try body.wholeData(upTo: limit, url: head.url) != nil { return self }
        var response = self
        response.body = ResponseBody(try await body.collect(upTo: limit, url: head.url))
        return response
    }

    /// The response, whose body is whole (``whole(upTo:)``).
    var collected: Response {
        Response(head: head, body: body.wholeData ?? Data(), decoding: decoding)
    }
}

extension StreamedResponse {
    /// Whether a response with `status` has no body, whatever its `Content-Length` says: 1xx,
    /// 204 and 304 (RFC 9110 §6.4.1; a response to `HEAD` has none either).
    static func carriesNoBody(status: Int) -> Bool {
        (100...199).contains(status) || status == 204 || status == 304
    }
}
