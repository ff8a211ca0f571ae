import Foundation

extension RequestBody {
    /// A `multipart/form-data` body (RFC 7578), streamed: file parts are read from disk while they
    /// are sent, never loaded whole into memory. Sent as `multipart/form-data; boundary=<boundary>`,
    /// with a `Content-Length` whenever every part's size is known, else chunked.
    ///
    /// ```swift
    /// var form = MultipartForm()
    /// form.append(fileAt: reportURL, name: "file")
    /// var body: RequestBody? { .multipart(form) }
    /// ```
    ///
    /// Names, filenames, headers and file sizes are checked when the request is built; see
    /// ``MultipartForm`` for the errors.
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        // File parts are read in 64 KiB chunks. A random boundary that happens to occur in an
        // in-memory part is replaced here by a new random one (contentType names the one sent).
        let form = form.withBoundaryClearOfContent()
        return RequestBody(
            content: .stream { () throws(CourierError) in try form.makeBodyStream() },
            contentType: form.contentType)
    }
}
