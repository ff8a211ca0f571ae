public import Foundation

extension Call {
    /// This call with its upload and download progress observable: the returned
    /// ``CallWithProgress`` has both sequences before the request starts, so no early value is
    /// missed. Resume it (or download through it) instead of the call. This is how Courier
    /// reports a call's progress; a pausable download has its own, ``Download/progress``.
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
    /// A call resumed without it has no progress machinery at all.
    public func withProgress() -> CallWithProgress {
        CallWithProgress(call: self)
    }

    /// This call, sending its body counted into `upload` and its response counted into `download`.
    func observing(upload: ProgressMeter?, download: ProgressMeter?) -> Call {
        var call = self
        call.options.uploadMeter = upload
        call.options.downloadMeter = download
        return call
    }
}

/// A ``Call`` whose upload and download progress can be observed, made by
/// ``Call/withProgress()``. The sequences exist before the request starts and end when the call
/// ends; resume it once.
///
/// ```swift
/// let call = client.enqueue(DownloadReport(id: 7)).withProgress()
/// Task { for await progress in call.downloadProgress { print(progress.fraction ?? 0) } }
/// let report = try await call.resume(expecting: Report.self)
/// ```
public struct CallWithProgress: Sendable {
    let call: Call
    private let uploadMeter: ProgressMeter
    private let downloadMeter: ProgressMeter

    /// The request body's progress, counted as the transport reads it: a first value at 0 when
    /// it starts, the last at the body's size. Ends without a value for a request with no body.
    public let uploadProgress: TransferProgressUpdates
    /// The response body's progress, counted as it arrives (for ``download(to:options:)``: as it
    /// is written to disk): a first value when the head arrives, the last at the body's size.
    public let downloadProgress: TransferProgressUpdates

    init(call: Call) {
        self.call = call
        (uploadProgress, uploadMeter) = ProgressMeter.makeUpdates(.upload)
        (downloadProgress, downloadMeter) = ProgressMeter.makeUpdates(.download)
    }

    /// Sends the request and returns the validated response, as ``Call/resume()``, reporting
    /// progress; both sequences end when it returns or throws.
    /// - Throws: as ``Call/resume()``.
    public func resume() async throws(CourierError) -> Response {
        defer { endProgress() }
        return try await call.observing(upload: uploadMeter, download: downloadMeter).resume()
    }

    /// Sends the request and decodes the body, as ``Call/resume(expecting:)``, reporting progress;
    /// both sequences end when it returns or throws.
    /// - Throws: as ``Call/resume(expecting:)``.
    public func resume<T: Decodable & Sendable>(expecting type: T.Type) async throws(CourierError) -> T {
        defer { endProgress() }
        return try await call.observing(upload: uploadMeter, download: downloadMeter).resume(expecting: type)
    }

    /// Downloads the response body to `destination`, as ``Call/download(to:options:)``,
    /// reporting progress; both sequences end when it returns or throws.
    ///
    /// ```swift
    /// let call = client.enqueue(GetImage(name: "jammy.iso")).withProgress()
    /// Task { for await progress in call.downloadProgress { print(progress) } }
    /// let file = try await call.download(to: URL(filePath: "/tmp/jammy.iso"))
    /// ```
    /// - Throws: as ``Call/download(to:options:)``.
    public func download(to destination: URL, options: DownloadOptions = DownloadOptions()) async throws(CourierError) -> DownloadedFile {
        defer { endProgress() }
        let upload = call.observing(upload: uploadMeter, download: nil)
        return try await DownloadTransfer(call: upload, destination: destination, options: options, meter: downloadMeter).run()
    }

    private func endProgress() {
        uploadMeter.end()
        downloadMeter.end()
    }
}

/// The stage that counts a response body into a download meter as the caller reads it.
struct DownloadCountingStage: Middleware {
    let meter: ProgressMeter

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var response = try await next(request)
        let expected = response.body.expectedLength.map(Int64.init)
        response.body = ResponseBody(CountedChunks(base: response.body, meter: meter, expected: expected), expectedLength: response.body.expectedLength)
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
