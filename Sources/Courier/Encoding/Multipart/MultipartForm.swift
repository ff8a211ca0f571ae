public import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory data, files streamed from
/// disk and `AsyncSequence`s, in the order they were appended. Send it with
/// ``RequestBody/multipart(_:)``.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(text: "Ada", name: "author")
/// form.append(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), name: "report")   // application/pdf
/// var body: RequestBody? { .multipart(form) }
/// ```
///
/// Appending never fails: invalid input (a control character in a name, a bad per-part header,
/// a missing file) fails the call with ``CourierError/invalidRequest(_:)`` before anything is
/// sent. A form is replayable unless it holds a
/// ``append(stream:length:name:filename:contentType:headers:)`` part.
public struct MultipartForm: Sendable {
    // Nothing is read or checked while the form is assembled. When the request is built, every
    // name, filename and per-part header is checked, the size of every file is taken (without
    // reading it) and the total becomes the `Content-Length`. Files are read in 64 KiB chunks while
    // the body is sent and are never held whole in memory. The errors:
    // - a name or filename with a control character (CR, LF, NUL, …: a header-injection attempt):
    //   .invalidMultipartForm;
    // - a per-part header name that is not an RFC 9110 token, or a value with control characters:
    //   .invalidHeaderName, .invalidHeaderValue(name:);
    // - a per-part `Content-Disposition` header (Courier writes it): .invalidMultipartForm;
    // - a missing or unreadable file: .bodySourceFailed.
    //
    // Names and filenames are written as WHATWG HTML forms write them: `"` becomes `%22`, anything
    // else (non-ASCII included) is sent as raw UTF-8, with no RFC 2231 `filename*` (RFC 7578 §4.2,
    // §5.1).

    /// The boundary between parts.
    ///
    /// ```swift
    /// MultipartForm().boundary                       // "courier-" + 32 random hex digits
    /// MultipartForm(boundary: "XyZ").boundary        // "XyZ"
    /// ```
    /// A random boundary is replaced by a new random one if it occurs in an in-memory part when
    /// ``RequestBody/multipart(_:)`` is called; the boundary actually sent is the one in
    /// ``RequestBody/contentType``.
    package internal(set) var boundary: String
    /// Whether ``boundary`` was made up by Courier (and may be replaced) or fixed by the caller.
    let isBoundaryRandom: Bool
    /// The parts, in the order they are sent.
    ///
    /// <!-- guide: skip: internal API, not visible outside Courier -->
    /// ```swift
    /// #expect(form.parts.map(\.name) == ["author", "report"])
    /// ```
    private(set) var parts: [Part] = []

    /// Creates an empty form.
    ///
    /// ```swift
    /// let form = MultipartForm()                                    // random boundary
    /// let fixed = MultipartForm(boundary: "----CourierFormBoundary")  // e.g. for byte-exact tests
    /// ```
    /// - Parameter boundary: `nil` for a random boundary (`courier-` and 32 hex digits from
    ///   `SystemRandomNumberGenerator`). A boundary you give must follow RFC 2046: 1 to 70
    ///   characters among letters, digits and `'()+_,-./:=?` and space, not ending with a space.
    ///   It is checked when the request is built, as is that it does not occur in any part: a fixed
    ///   boundary is never replaced, so an invalid or colliding one fails the call with
    ///   ``InvalidRequest/invalidMultipartForm(_:)``.
    public init(boundary: String? = nil) {
        if let boundary {
            self.boundary = boundary
            isBoundaryRandom = false
        } else {
            self.boundary = Self.randomBoundary()
            isBoundaryRandom = true
        }
    }

    /// Appends a text field, sent as UTF-8 with no `Content-Type` (RFC 7578 §4.4: a part without
    /// one is `text/plain`, and HTML forms send text fields this way).
    ///
    /// ```swift
    /// form.append(text: "Ada Lovelace", name: "author")
    /// // Content-Disposition: form-data; name="author"
    /// //
    /// // Ada Lovelace
    /// ```
    /// - Parameters:
    ///   - text: the field's value.
    ///   - name: the field's name.
    ///   - headers: more headers for this part, written after `Content-Disposition`; a
    ///     `Content-Type` among them is sent as the part's type.
    public mutating func append(text: String, name: String, headers: [HeaderItem] = []) {
        parts.append(Part(name: name, filename: nil, contentType: nil, headers: headers, content: .text(text)))
    }

    /// Appends bytes held in memory, as a file upload when `filename` is given.
    ///
    /// ```swift
    /// form.append(data: png, name: "avatar", filename: "me.png")            // image/png
    /// form.append(data: json, name: "meta", contentType: "application/json")
    /// ```
    /// - Parameters:
    ///   - data: the part's bytes.
    ///   - name: the field's name.
    ///   - filename: the `filename` parameter of `Content-Disposition`, if any.
    ///   - contentType: the part's media type. When `nil`: derived from `filename`'s extension
    ///     (`application/octet-stream` for an unknown one), or `application/octet-stream` without
    ///     a filename. Bytes always get a `Content-Type`; use ``append(text:name:headers:)`` for a
    ///     field without one.
    ///   - headers: more headers for this part; a `Content-Type` among them replaces `contentType`.
    public mutating func append(
        data: Data, name: String, filename: String? = nil, contentType: String? = nil,
        headers: [HeaderItem] = []
    ) {
        parts.append(
            Part(
                name: name, filename: filename, contentType: contentType ?? Self.mediaType(filename: filename),
                headers: headers, content: .data(data)))
    }

    /// Appends a file, streamed from disk while the body is sent: it is never loaded whole into
    /// memory. Its size is taken when the request is built, without reading it.
    ///
    /// A file that is missing when the request is built fails the call with
    /// ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` and nothing is sent; one that disappears
    /// or changes size before it is sent, or contains the boundary, stops the upload with the same error.
    /// - Parameters:
    ///   - url: a file URL.
    ///   - name: the field's name.
    ///   - filename: the `filename` parameter; `url.lastPathComponent` when `nil`.
    ///   - contentType: the media type; when `nil`, derived from `url`'s extension
    ///     (`application/octet-stream` for an unknown one).
    ///   - headers: more headers for this part; a `Content-Type` among them replaces `contentType`.
    public mutating func append(
        fileAt url: URL, name: String, filename: String? = nil, contentType: String? = nil,
        headers: [HeaderItem] = []
    ) {
        // The file is scanned for the boundary while it is sent, at a cost of about 0.1 s per GiB
        // (Documentation/LinuxNotes.md).
        parts.append(
            Part(
                name: name, filename: filename ?? url.lastPathComponent,
                contentType: contentType ?? MediaTypes.forFile(url), headers: headers, content: .file(url)))
    }

    /// Appends a part read from an `AsyncSequence` of chunks (`Data`, `[UInt8]`, …) while the body
    /// is sent. The sequence is read once, so the form becomes single-use: a second send fails with
    /// ``InvalidRequest/bodyNotReplayable``.
    ///
    /// - Parameters:
    ///   - stream: the part's bytes, in order. An error it throws, a byte count other than `length`,
    ///     or the boundary occurring in it fails the call with ``InvalidRequest/bodySourceFailed(_:underlyingError:)``.
    ///   - length: the exact number of bytes, when known; `nil` makes the whole body's length
    ///     unknown, so it is sent with chunked transfer encoding.
    ///   - name: the field's name.
    ///   - filename: the `filename` parameter, if any.
    ///   - contentType: the media type; when `nil`, as for ``append(data:name:filename:contentType:headers:)``.
    ///   - headers: more headers for this part; a `Content-Type` among them replaces `contentType`.
    public mutating func append<Chunks: AsyncSequence & Sendable>(
        stream: Chunks, length: Int64?, name: String, filename: String? = nil, contentType: String? = nil,
        headers: [HeaderItem] = []
    ) where Chunks.Element: DataProtocol {
        parts.append(
            Part(
                name: name, filename: filename, contentType: contentType ?? Self.mediaType(filename: filename),
                headers: headers, content: .stream(length: length), stream: BodyStream(stream, length: length)))
    }

    /// Whether the form can be sent more than once: `false` once it holds a stream part.
    ///
    /// <!-- guide: skip: internal API, not visible outside Courier -->
    /// ```swift
    /// #expect(form.isReplayable)
    /// ```
    var isReplayable: Bool {
        parts.allSatisfy { $0.stream == nil }
    }

    private static func mediaType(filename: String?) -> String {
        filename.map { MediaTypes.forPathExtension(($0 as NSString).pathExtension) } ?? "application/octet-stream"
    }

    /// `courier-` and 32 hex digits (128 random bits).
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "courier-" + hex(generator.next()) + hex(generator.next())
    }
}

extension MultipartForm {
    /// One part of a ``MultipartForm``, as it will be sent.
    ///
    /// <!-- guide: skip: internal API, not visible outside Courier -->
    /// ```swift
    /// let part = form.parts[1]
    /// #expect(part.name == "report" && part.filename == "report.pdf" && part.contentType == "application/pdf")
    /// ```
    struct Part: Sendable {
        /// Where a part's bytes come from.
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// if case .file(let url) = form.parts[1].content { print(url.path) }
        /// ```
        enum Content: Sendable, Equatable {
            /// A text field, sent as UTF-8.
            case text(String)
            /// Bytes in memory.
            case data(Data)
            /// A file, read while it is sent.
            case file(URL)
            /// An `AsyncSequence`, read once while it is sent; `length` when it was given.
            case stream(length: Int64?)
        }

        /// The field's name (the `name` parameter of `Content-Disposition`), as given.
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// #expect(form.parts.map(\.name) == ["author", "report"])
        /// ```
        let name: String
        /// The `filename` parameter, as given (a file's last path component by default).
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// #expect(form.parts[1].filename == "report.pdf")
        /// ```
        let filename: String?
        /// The media type Courier writes as the part's `Content-Type` (`nil` for text fields),
        /// unless ``headers`` carries its own.
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// #expect(form.parts[1].contentType == "application/pdf")
        /// ```
        let contentType: String?
        /// The extra headers written after `Content-Disposition` and `Content-Type`.
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// #expect(form.parts[0].headers.isEmpty)
        /// ```
        let headers: [HeaderItem]
        /// Where the bytes come from.
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// #expect(form.parts[0].content == .text("Ada"))
        /// ```
        let content: Content
        /// The single-use body of a stream part.
        let stream: BodyStream?

        init(
            name: String, filename: String?, contentType: String?, headers: [HeaderItem], content: Content,
            stream: BodyStream? = nil
        ) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.headers = headers
            self.content = content
            self.stream = stream
        }
    }
}
