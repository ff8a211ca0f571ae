public import Foundation

extension Call {
    /// Sends the request and writes the body to `destination`, a few chunks in memory at a time,
    /// and returns once the file is whole. `destination` never holds a partial file; a dropped
    /// connection is continued with `Range`/`If-Range`, and what arrived stays on disk for the
    /// next download of the same URL to the same place. Progress: a call made with
    /// ``withProgress()``; pausing: ``makeDownload(to:options:resumingFrom:)``.
    ///
    /// ```swift
    /// let file = try await client.enqueue(GetImage(name: "noble.iso")).download(to: isoURL)
    /// ```
    /// - Parameters:
    ///   - destination: a file URL in a folder that exists and is writable.
    ///   - options: how often to continue after a dropped connection, a limit on the run.
    /// - Throws: as ``stream()`` before the body; ``CourierError/transport(_:)`` of kind
    ///   ``TransportFailure/Kind/fileSystem`` (naming the file) or
    ///   ``TransportFailure/Kind/badResponse`` (more than announced, inconsistent ranges), the last
    ///   connection failure once the attempts are spent; ``CourierError/cancelled``.
    public func download(to destination: URL, options: DownloadOptions = DownloadOptions()) async throws(CourierError) -> DownloadedFile {
        guard let progress = self.options.progress else {
            return try await DownloadTransfer(call: self, destination: destination, options: options, meter: nil).run()
        }
        defer { progress.end() }
        let upload = observing(upload: progress.uploadMeter, download: nil)
        return try await DownloadTransfer(call: upload, destination: destination, options: options, meter: progress.downloadMeter).run()
    }

    /// A download to `destination` that can be paused and resumed, not started yet: call
    /// ``Download/start()``. Its ``Download/progress`` exists already, so no value is missed.
    ///
    /// ```swift
    /// let download = client.enqueue(GetImage(name: "noble.iso")).makeDownload(to: destination)
    /// await download.start()
    /// let resumeData = await download.pause()        // keep it, or let the saved state do
    /// await download.start()
    /// let file = try await download.finished()
    /// ```
    /// - Parameters:
    ///   - destination: the file to create (replaced if it exists), once the body is whole.
    ///   - options: resume attempts and the like; the defaults suit most downloads.
    ///   - resumeData: what ``Download/pause()`` returned, to continue from; without it, the
    ///     state saved next to the partial file (if any) is used.
    public func makeDownload(
        to destination: URL, options: DownloadOptions = DownloadOptions(), resumingFrom resumeData: DownloadResumeData? = nil
    ) -> Download {
        self.options.progress?.end()  // a pausable download reports into its own `progress`
        return Download(call: observing(upload: nil, download: nil), destination: destination, options: options, resumeData: resumeData)
    }
}
