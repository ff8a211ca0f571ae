public import Courier
public import Foundation
import HTTPTypes

/// A `Transport` that answers from a ``FixtureDirectory``, and can record the fixtures it is
/// missing from a real server, once.
///
/// Recording writes the final response with every secret header, and secret JSON and form
/// fields, written `<redacted>`; secrets in other bodies and in paths are not found, so review
/// recordings before committing them. In replay, a request without a fixture is answered `501`
/// with `X-Courier-Stub: no-fixture` and listed in ``missingFixtures``; an unreadable fixture
/// fails the call with `CourierError.transport(_:)`. Documentation/Testing.md has the rules.
///
/// ```swift
/// let record = ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == "1"
/// let transport = FixtureTransport(
///     directory: fixtures, mode: record ? .recordMissing(through: URLSessionTransport()) : .replay)
/// let client = Client(configuration: Configuration(transport: transport))
/// ```
public final class FixtureTransport: Transport {
    // What is written: the final response (after the real transport's redirects): status, reason
    // phrase, header fields and the whole body, decoded. Every header the directory's redaction
    // calls secret (`Set-Cookie`, `Authorization`, `X-Api-Key`, `*-Token`…) is written
    // `<redacted>`, URL-valued headers (`Location`) have their secret query values hidden, and in
    // JSON and form bodies the values of secret fields (`access_token`, `refresh_token`,
    // `password`…) are replaced, the JSON written again with sorted keys (a body without secrets is
    // written byte for byte). Framing is left out (`Transfer-Encoding`, `Connection` and the other
    // hop-by-hop fields, and `Content-Encoding` and `Content-Length` of a body the transport
    // decompressed). Files are written atomically: a reader sees the old file or the new one.
    //
    // Each recording is answered from what was written, so the recording run sees exactly what
    // later replays see (redacted values included). Responses of any status are recorded; failures
    // (no response) are not: they are thrown as they are.
    //
    // Replaying: the 501's `text/plain` body names the file it looked for. A fixture that cannot be
    // read or parsed fails with kind `.badResponse`, naming the file and the line; a body longer
    // than the request's maximumResponseSize fails with `.responseTooLarge`, as over the network.
    //
    // Two concurrent requests for the same missing fixture are both sent, and the file holds one of
    // the two responses.

    /// Where responses come from.
    public enum Mode: Sendable {
        /// Only from the fixture files; nothing is sent.
        case replay
        /// From the fixture files; a request without one is sent through the transport, and its
        /// response recorded.
        case recordMissing(through: any Transport)
        /// Every request is sent through the transport, and its response recorded, replacing
        /// any fixture there was.
        case overwrite(through: any Transport)
    }

    /// The fixtures.
    public let directory: FixtureDirectory
    /// Where responses come from.
    public let mode: Mode

    private struct Log {
        var requests: [TransportRequest] = []
        var recordedFiles: [URL] = []
        var missingFixtures: [URL] = []
    }

    private let log = LockedState(Log())

    /// A transport over `directory`, replaying by default.
    public init(directory: FixtureDirectory, mode: Mode = .replay) {
        self.directory = directory
        self.mode = mode
    }

    /// Every request sent to this transport, in order.
    public var requests: [TransportRequest] { log.withLock { $0.requests } }
    /// The fixture files written so far, in order.
    public var recordedFiles: [URL] { log.withLock { $0.recordedFiles } }
    /// The fixture files that replayed requests looked for and did not find, in order.
    ///
    /// ```swift
    /// #expect(transport.missingFixtures.isEmpty)
    /// ```
    public var missingFixtures: [URL] { log.withLock { $0.missingFixtures } }

    /// When recording, what the real transport says (the client then asks for gzip exactly as
    /// it would without fixtures); `false` when replaying, as fixtures are never compressed.
    public var decodesGzip: Bool {
        switch mode {
        case .replay: false
        case .recordMissing(let upstream), .overwrite(let upstream): upstream.decodesGzip
        }
    }

    /// Answers `request` from its fixture, or records one (see the type's documentation).
    /// - Throws: `CourierError/transport(_:)` for a fixture that cannot be read, parsed or
    ///   written, or whose body passes the request's size limit; whatever the real transport
    ///   throws while recording; `CourierError/cancelled` when the task is cancelled.
    public func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        log.withLock { $0.requests.append(request) }
        let method = request.head.method.rawValue
        let target = request.head.path ?? "/"
        switch mode {
        case .replay:
            if let found = try replay(request, method: method, target: target) { return found }
            let file = directory.fileURL(method: method, target: target, includingQuery: true)
            log.withLock { $0.missingFixtures.append(file) }
            return StreamedResponse(
                statusCode: 501, headers: ["Content-Type": "text/plain; charset=utf-8", "X-Courier-Stub": "no-fixture"],
                body: Data("CourierTesting: no fixture for \(method) \(directory.redaction.redact(url: request.url)) at \(file.path)".utf8),
                url: request.url)
        case .recordMissing(let upstream):
            if let found = try replay(request, method: method, target: target) { return found }
            return try await record(request, method: method, target: target, through: upstream)
        case .overwrite(let upstream):
            return try await record(request, method: method, target: target, through: upstream)
        }
    }

    /// The response of the request's fixture, or `nil` when there is none.
    private func replay(_ request: TransportRequest, method: String, target: String) throws(CourierError) -> StreamedResponse? {
        let found: (URL, FixtureFormat.Fixture)?
        do {
            found = try directory.fixture(method: method, target: target)
        } catch {
            throw Self.failure(error, request: request)
        }
        guard let (_, fixture) = found else { return nil }
        return try Self.response(fixture, to: request)
    }

    /// Sends `request` through `upstream`, writes the fixture and answers with what was written.
    private func record(
        _ request: TransportRequest, method: String, target: String, through upstream: any Transport
    ) async throws(CourierError) -> StreamedResponse {
        let received = try await upstream.send(request).collect(upTo: request.maximumResponseSize)
        let fixture = FixtureRecording.fixture(of: received, redaction: directory.redaction, bodyWasDecoded: upstream.decodesGzip)
        let data = FixtureFormat.render(fixture)
        let file = directory.fileURL(method: method, target: target, includingQuery: true)
        guard data.count <= directory.maximumFileSize else {
            throw Self.failure(FixtureError(.fileTooLarge(limit: directory.maximumFileSize), file: file), request: request)
        }
        let written: FixtureFormat.Fixture
        do {
            // Read back before writing: a file is written only if replays can read it (a head
            // past the 64 KiB limit cannot be).
            written = try FixtureFormat.parse(data)
            try FixtureDirectory.write(data, to: file)
        } catch {
            throw Self.failure(error.located(at: file), request: request)
        }
        log.withLock { $0.recordedFiles.append(file) }
        return try Self.response(written, to: request)
    }

    /// `fixture` as the response to `request`, within the request's size limit.
    private static func response(_ fixture: FixtureFormat.Fixture, to request: TransportRequest) throws(CourierError) -> StreamedResponse {
        if let limit = request.maximumResponseSize, fixture.body.count > limit {
            throw .transport(.responseTooLarge(limit: limit, url: request.url))
        }
        let status = HTTPResponse.Status(code: fixture.statusCode, reasonPhrase: fixture.reasonPhrase)
        return StreamedResponse(Response(status: status, headers: fixture.headerFields, body: fixture.body, url: request.url))
    }

    /// A fixture problem as a transport failure: a file system problem when writing, a bad
    /// response otherwise.
    private static func failure(_ error: FixtureError, request: TransportRequest) -> CourierError {
        let kind: TransportFailure.Kind =
            switch error.kind {
            case .unwritable: .fileSystem
            default: .badResponse
            }
        return .transport(TransportFailure(kind: kind, url: request.url, message: "CourierTesting: \(error)", underlyingError: error))
    }
}
