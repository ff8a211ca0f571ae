public import Foundation
public import HTTPTypes

/// How a download to disk behaves (``Call/download(to:options:)``).
///
/// A download's timeout (``Requestable/timeout`` or ``Configuration/timeout``) limits waiting,
/// not the transfer: the response head must arrive within it, then no gap in the body may last
/// longer; a body that keeps arriving is never cut. ``maximumDuration`` limits the whole run.
///
/// ```swift
/// var options = DownloadOptions()
/// options.maximumResumeAttempts = 10          // a flaky network: keep going longer
/// options.maximumDuration = .seconds(3600)    // but give up after an hour
/// let file = try await call.download(to: destination, options: options)
/// ```
public struct DownloadOptions: Sendable, Equatable {
    /// How many times one run of a download continues after a dropped connection or a body
    /// silent for longer than the timeout (with a `Range` request when the server gave a
    /// validator, from zero otherwise) or restarts after the resource changed, before it fails
    /// with the last error. Default 3; 0 never retries.
    public var maximumResumeAttempts: Int
    /// How long one run of the download may take in all, every connection and resume included,
    /// before it fails with a ``TransportFailure/Kind/timedOut`` failure (the bytes so far stay on
    /// disk for the next run). `nil` (the default): no limit, however slow the body, as long as
    /// it keeps arriving.
    public var maximumDuration: Duration?

    /// Options with the defaults, or the given values.
    public init(maximumResumeAttempts: Int = 3, maximumDuration: Duration? = nil) {
        self.maximumResumeAttempts = Swift.max(0, maximumResumeAttempts)
        self.maximumDuration = maximumDuration
    }
}

/// A download that completed: the file is at ``location``, whole, synced to disk.
public struct DownloadedFile: Sendable, Equatable {
    /// Where the file is: the destination asked for.
    public var location: URL
    /// The size of the file in bytes.
    public var byteCount: Int64
    /// The status of the last response (`200`, or `206` when the end was fetched with a range).
    public var status: HTTPResponse.Status
    /// The header fields of the last response.
    public var headers: HTTPFields
    /// How many times the transfer continued from bytes already on disk (after a pause, a crash
    /// or a dropped connection).
    public var resumeCount: Int

    /// Creates a value, for tests and custom download code.
    public init(location: URL, byteCount: Int64, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], resumeCount: Int = 0) {
        self.location = location
        self.byteCount = byteCount
        self.status = status
        self.headers = headers
        self.resumeCount = resumeCount
    }
}

/// What a paused or interrupted download needs to continue where it stopped: returned by
/// ``Download/pause()``, and also saved next to the partial file, so that a download to the
/// same destination after a crash continues by itself.
///
/// It holds the resource's URL and validator, and where the bytes so far are. Persist it
/// (it is `Codable`) as you would the URL itself: its query may carry a secret. Its description
/// redacts the URL.
///
/// ```swift
/// let resumeData = await download.pause()
/// // … later, even in another process:
/// let resumed = client.enqueue(GetImage()).makeDownload(to: destination, resumingFrom: resumeData)
/// ```
public struct DownloadResumeData: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The URL that was requested.
    public var url: URL
    /// What identifies the version of the resource whose bytes are on disk: its strong `ETag`,
    /// else its `Last-Modified`; sent as `If-Range`. `nil` when the server gave neither: such a
    /// download cannot continue and starts again from zero.
    package var validator: String?
    /// How many bytes of the body are in the temporary file (synced to disk).
    public var receivedBytes: Int64
    /// The size of the whole body, when the server said.
    public var expectedBytes: Int64?
    /// The partial file, next to the destination.
    package var temporaryFile: URL

    /// Creates resume data, e.g. decoded from your own storage.
    init(url: URL, validator: String?, receivedBytes: Int64, expectedBytes: Int64?, temporaryFile: URL) {
        self.url = url
        self.validator = validator
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.temporaryFile = temporaryFile
    }

    /// Whether the transfer can continue with a `Range` request.
    var canResume: Bool { validator != nil && receivedBytes > 0 }

    /// E.g. `1048576 of 4194304 bytes of https://example.com/image.iso`, with the URL redacted.
    public var description: String {
        "\(receivedBytes) of \(expectedBytes.map(String.init) ?? "?") bytes of \(url.redactedForErrors.absoluteString)"
    }
}
