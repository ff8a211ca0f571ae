public import Courier
public import Foundation

/// A folder of fixture files, one response per file, each named after the request it answers:
/// `users/42/GET.response` answers `GET /users/42`, `GET /search?q=swift` is
/// `search/GET?q=swift.response` (or `search/GET.response`, for any query).
///
/// A fixture file is an HTTP response as `curl -i` prints it (see ``StubResponse/init(fixture:)``).
/// Replay the folder through a ``NetworkStub`` or a ``FixtureTransport``, which can also record
/// missing fixtures. ``fileURL(for:_:)`` tells where a request's fixture goes. Secret query
/// values (by ``redaction``) are written `%3Credacted%3E`, so no token lands in a file name.
///
/// ```swift
/// let fixtures = try FixtureDirectory(bundle: .module, folder: "Fixtures")
/// let network = NetworkStub()
/// network.stub(fixturesIn: fixtures)
/// ```
public struct FixtureDirectory: Sendable, Equatable {
    // Names in full (Documentation/Testing.md, "A folder, named by request"): a path segment is a
    // folder and the method is the file name, followed by `?` and the query when there is one. A
    // request with a query that has no such file is answered by the file without the query, which
    // so answers any query. `GET /` is `GET.response`; a trailing slash is a folder named `%` (`GET
    // /items/` is `items/%/GET.response`). Segments and queries are written percent-encoded, as
    // sent, with `:`, `;`, `*`, `\`, `<`, `>`, `|`, `"`, and `/` in a query, written `%XX`. A name
    // longer than 200 bytes is cut to 200 bytes ending in `~` and a 16-digit hash of the whole.
    // Requests that differ only in a secret query value share a fixture. The host, the port, the
    // request's headers and its body are not part of the name. On a file system that ignores case
    // (macOS's default), paths that differ only in case share a fixture.

    /// The folder.
    public var url: URL
    /// The largest fixture file read or recorded, in bytes. Default:
    /// ``defaultMaximumFileSize``.
    public var maximumFileSize: Int
    /// Which query values are kept out of file names, and which headers and body fields a
    /// ``FixtureTransport`` hides when it records. Default: `Redaction/default`.
    public var redaction: Redaction

    /// 16 MiB.
    public static let defaultMaximumFileSize = 16 * 1024 * 1024
    /// The longest head (status line and header lines) a fixture may have: 64 KiB.
    public static let maximumHeadSize = FixtureFormat.maximumHeadSize

    /// A fixture folder at `url` (which need not exist yet when recording).
    ///
    /// ```swift
    /// let fixtures = FixtureDirectory(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Fixtures"))
    /// ```
    public init(_ url: URL, maximumFileSize: Int = defaultMaximumFileSize, redaction: Redaction = .default) {
        self.url = url
        self.maximumFileSize = maximumFileSize
        self.redaction = redaction
    }

    /// The fixture folder `folder` among `bundle`'s resources: in a test target that declares
    /// `resources: [.copy("Fixtures")]`, `FixtureDirectory(bundle: .module)`.
    ///
    /// ```swift
    /// let fixtures = try FixtureDirectory(bundle: .module, folder: "Fixtures")   // the test target copies "Fixtures"
    /// ```
    ///
    /// Use `.copy`, not `.process`: processing flattens folders, and the folders are the names.
    /// - Throws: ``FixtureError/Kind/fileNotFound`` when the bundle has no such folder.
    public init(
        bundle: Bundle, folder: String = "Fixtures", maximumFileSize: Int = defaultMaximumFileSize, redaction: Redaction = .default
    ) throws(FixtureError) {
        guard let url = bundle.url(forResource: folder, withExtension: nil) else {
            throw FixtureError(.fileNotFound, file: bundle.resourceURL?.appendingPathComponent(folder) ?? bundle.bundleURL)
        }
        self.init(url, maximumFileSize: maximumFileSize, redaction: redaction)
    }

    /// The file for a request with `method` and `target` (its path, and its query if any, as
    /// sent): where a recording goes, and the first file a replay reads.
    ///
    /// ```swift
    /// fixtures.fileURL(for: .get, "/users/42")          // …/users/42/GET.response
    /// fixtures.fileURL(for: .get, "/search?q=swift")    // …/search/GET?q=swift.response
    /// ```
    public func fileURL(for method: HTTPMethod, _ target: String) -> URL {
        fileURL(method: method.rawValue, target: target, includingQuery: true)
    }

    /// The fixture answering `request` as a stub response, or `nil` when the folder has none for
    /// it. Tries the file with the query, then the one without.
    ///
    /// ```swift
    /// network.stub { request in try? fixtures.response(for: request) }
    /// ```
    /// - Throws: ``FixtureError`` when the file exists but is too large, unreadable or malformed.
    public func response(for request: RecordedRequest) throws(FixtureError) -> StubResponse? {
        guard let (_, fixture) = try fixture(method: request.method, target: StubStorage.target(of: request, ignoringQuery: false)) else {
            return nil
        }
        return StubResponse(fixture)
    }

    // MARK: Internals shared with FixtureTransport

    func fileURL(method: String, target: String, includingQuery: Bool) -> URL {
        FixtureNaming.components(method: method, target: target, redaction: redaction, includingQuery: includingQuery)
            .reduce(url) { $0.appendingPathComponent($1, isDirectory: false) }
    }

    /// The fixture for a request and its file: the file with the query first, then the one
    /// without; `nil` when neither exists.
    func fixture(method: String, target: String) throws(FixtureError) -> (URL, FixtureFormat.Fixture)? {
        var candidates = [fileURL(method: method, target: target, includingQuery: true)]
        if FixtureNaming.hasQuery(target) {
            candidates.append(fileURL(method: method, target: target, includingQuery: false))
        }
        for file in candidates {
            do {
                return (file, try Self.read(file, maximumSize: maximumFileSize))
            } catch {
                guard error.kind == .fileNotFound else { throw error }
            }
        }
        return nil
    }

    /// Reads and parses the fixture file at `file`.
    static func read(_ file: URL, maximumSize: Int) throws(FixtureError) -> FixtureFormat.Fixture {
        do {
            return try FixtureFormat.parse(readBytes(file, maximumSize: maximumSize))
        } catch {
            throw error.located(at: file)
        }
    }

    /// At most `maximumSize` bytes of `file`, read without ever holding more than one byte
    /// past the limit.
    private static func readBytes(_ file: URL, maximumSize: Int) throws(FixtureError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw FixtureError(.fileNotFound, file: file)
        }
        guard !isDirectory.boolValue else {
            throw FixtureError(.unreadable(reason: "it is a directory"), file: file)
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            data = try handle.read(upToCount: max(0, maximumSize) + 1) ?? Data()
        } catch {
            throw FixtureError(.unreadable(reason: error.localizedDescription), file: file)
        }
        guard data.count <= maximumSize else {
            throw FixtureError(.fileTooLarge(limit: maximumSize), file: file)
        }
        return data
    }

    /// Writes `data` to `file` atomically (a temporary file renamed into place), creating the
    /// folders on the way.
    static func write(_ data: Data, to file: URL) throws(FixtureError) {
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            throw FixtureError(.unwritable(reason: error.localizedDescription), file: file)
        }
    }
}

extension StubResponse {
    /// The response in the fixture file at `url`: status, headers and body.
    ///
    /// ```swift
    /// let url = try #require(Bundle.module.url(forResource: "user-42", withExtension: "response"))
    /// network.stub(.get, "/users/42", with: try StubResponse(contentsOf: url))
    /// ```
    ///
    /// Repeated header fields are kept, each a field of ``headers``; answered through
    /// URLSession (``NetworkStub/makeTransport()``) they arrive joined with `", "`, as
    /// `HTTPURLResponse` presents them.
    /// - Parameters:
    ///   - url: the fixture file to read.
    ///   - maximumSize: the largest file accepted, in bytes.
    /// - Throws: ``FixtureError`` naming the file: ``FixtureError/Kind/fileNotFound``,
    ///   ``FixtureError/Kind/fileTooLarge(limit:)``, ``FixtureError/Kind/unreadable(reason:)``,
    ///   or the line that is malformed.
    public init(contentsOf url: URL, maximumSize: Int = FixtureDirectory.defaultMaximumFileSize) throws(FixtureError) {
        self.init(try FixtureDirectory.read(url, maximumSize: maximumSize))
    }

    /// The response written in `fixture`, the bytes of a fixture file: an HTTP response as
    /// `curl -i` prints it (a status line, header lines, a blank line and the body).
    ///
    /// ```swift
    /// let response = try StubResponse(fixture: Data("""
    ///     HTTP/1.1 404 Not Found
    ///     Content-Type: application/problem+json
    ///
    ///     {"title": "No such user"}
    ///     """.utf8))
    /// ```
    /// - Throws: ``FixtureError`` naming the malformed line.
    public init(fixture: Data) throws(FixtureError) {
        // The rules (Documentation/Testing.md, "The format"): a status line
        // `HTTP/<version> <code> [<reason>]`, code 200–599, informational heads before it (`HTTP/1.1
        // 100 Continue` and its blank line) skipped; header lines `Name: value`, white space around the
        // value dropped, no folded lines; LF or CRLF; a UTF-8 byte order mark at the start skipped; the
        // head at most 64 KiB. Then a blank line and the body: every byte after it, binary included.
        // With a `Content-Length` and a non-empty body, the body must be exactly that long, and one line
        // break after it (an editor's final newline) is dropped; without one, the body is everything,
        // a final line break included. A file that ends after its headers has an empty body. So
        // `curl -si https://api.example.com/users/42 > users/42/GET.response` makes a fixture.
        self.init(try FixtureFormat.parse(fixture))
    }

    init(_ fixture: FixtureFormat.Fixture) {
        self.init(statusCode: fixture.statusCode, headers: fixture.headerFields, body: fixture.body)
    }
}

extension NetworkStub {
    /// Answers every request that has a fixture in `directory` with it (see ``FixtureDirectory``
    /// for the names); requests without one go on to later stubs, or are unmatched.
    ///
    /// ```swift
    /// let network = NetworkStub()
    /// network.stub(fixturesIn: try FixtureDirectory(bundle: .module))
    /// network.stub(.post, "/users", with: .status(201))   // what the folder does not answer
    /// ```
    ///
    /// A fixture file that exists but cannot be used (too large, unreadable, malformed) is
    /// answered with `501 Not Implemented`, the header `X-Courier-Stub: invalid-fixture` and a
    /// `text/plain` body naming the file, the line and the problem.
    public func stub(fixturesIn directory: FixtureDirectory) {
        stub { request in
            do {
                return try directory.response(for: request)
            } catch {
                return .text("CourierTesting: \(error)", status: 501, headers: [.courierStub: "invalid-fixture"])
            }
        }
    }
}
