import Foundation

extension Call {
    /// This call with its upload and download progress observable in ``uploadProgress`` and
    /// ``downloadProgress``, which exist before the request starts, so no early value is missed.
    /// ``resume()``, ``resume(expecting:)`` and ``download(to:options:)`` report into them; both
    /// end when the first of those returns or throws. A pausable download has its own,
    /// ``Download/progress``.
    ///
    /// ```swift
    /// let call = client.enqueue(UploadVideo(file: movie)).withProgress()
    /// let watcher = Task {
    ///     for await progress in call.uploadProgress { print(progress) }   // upload 65536/734003200 bytes (0%) …
    /// }
    /// let receipt = try await call.resume(expecting: UploadReceipt.self)
    /// await watcher.value
    /// ```
    ///
    /// A call made without it has no progress machinery at all. Called again on a call whose
    /// sequences have not ended, it keeps them (a reader of the first ones would otherwise wait
    /// for a transfer that reports elsewhere); on one whose sequences ended, it makes new ones.
    public func withProgress() -> Call {
        if let progress = options.progress, !progress.hasEnded { return self }
        var call = self
        call.options.progress = CallProgress()
        return call
    }

    /// The request body's progress, counted as the transport reads it: a first value at 0 when
    /// it starts, the last at the body's size. Ends without a value for a request with no body,
    /// and at once for a call made without ``withProgress()``.
    public var uploadProgress: TransferProgressUpdates {
        options.progress?.upload ?? ProgressMeter.endedUpdates(.upload)
    }

    /// The response body's progress, counted as it arrives (for ``download(to:options:)``: as it
    /// is written to disk): a first value when the head arrives, the last at the body's size.
    /// Ends at once for a call made without ``withProgress()``.
    public var downloadProgress: TransferProgressUpdates {
        options.progress?.download ?? ProgressMeter.endedUpdates(.download)
    }

    /// This call, sending its body counted into `upload` and its response counted into `download`.
    func observing(upload: ProgressMeter?, download: ProgressMeter?) -> Call {
        var call = self
        call.options.progress = nil
        call.options.uploadMeter = upload
        call.options.downloadMeter = download
        return call
    }
}

/// The sequences and meters of a call made with ``Call/withProgress()``.
struct CallProgress: Sendable {
    let upload: TransferProgressUpdates
    let uploadMeter: ProgressMeter
    let download: TransferProgressUpdates
    let downloadMeter: ProgressMeter

    init() {
        (upload, uploadMeter) = ProgressMeter.makeUpdates(.upload)
        (download, downloadMeter) = ProgressMeter.makeUpdates(.download)
    }

    /// Whether the sequences have ended (a terminal operation ran).
    var hasEnded: Bool { uploadMeter.hasEnded || downloadMeter.hasEnded }

    /// Ends both sequences.
    func end() {
        uploadMeter.end()
        downloadMeter.end()
    }
}

extension ProgressMeter {
    /// A sequence that has ended, for a call without progress.
    static func endedUpdates(_ direction: TransferProgress.Direction) -> TransferProgressUpdates {
        let (updates, meter) = makeUpdates(direction)
        meter.end()
        return updates
    }
}

/// The stage that counts a response body into the call's download meter as the caller reads it.
struct DownloadCountingStage: Stage {
    var name: String { "download progress" }

    func applies(to call: StageCall) -> Bool { call.downloadMeter != nil }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        var response = try await next(request, call)
        if let meter = call.downloadMeter { response.body = CountedChunks.body(response.body, counting: meter) }
        return response
    }
}

/// A response body counted into a meter as it is read.
struct CountedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = CourierError

    let base: ResponseBody
    let meter: ProgressMeter
    let expected: Int64?

    /// `body`, counted into `meter` as it is read. A body counted already (as it arrived, in
    /// the transport stage) is counted again from memory: the meter drops what it reported.
    static func body(_ body: ResponseBody, counting meter: ProgressMeter) -> ResponseBody {
        let expected = body.expectedLength.map(Int64.init)
        return ResponseBody(CountedChunks(base: body, meter: meter, expected: expected), expectedLength: body.expectedLength)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), counter: ChunkCounter(ticker: ProgressTicker(meter), expected: expected))
    }

    struct Iterator: AsyncIteratorProtocol {
        typealias Failure = CourierError

        var base: ResponseBody.Iterator
        var counter: ChunkCounter

        mutating func next() async throws(CourierError) -> Data? {
            counter.start()
            return counter.counted(try await base.next())
        }

        mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Data? {
            try await next()
        }
    }
}
