public import Foundation

extension Call {
    /// Sends the request and writes the response body to the file at `destination`, holding
    /// only a few chunks in memory, and returns once the file is whole.
    ///
    /// `destination` never holds a partial file: the body goes to `.<name>.courier-download` next
    /// to it, is synced, then renamed over it. A dropped connection is continued with
    /// `Range`/`If-Range` (up to ``DownloadOptions/maximumResumeAttempts`` times); what arrived
    /// stays on disk when the download fails or is cancelled, and the next download of the same
    /// URL to the same `destination` continues from there. The timeout limits each wait (the head,
    /// a gap in the body), not the transfer; ``DownloadOptions/maximumDuration`` bounds the run.
    ///
    /// To observe progress, download a call made with ``withProgress()``; to pause, use
    /// ``makeDownload(to:options:resumingFrom:)``.
    ///
    /// ```swift
    /// let file = try await client.enqueue(GetImage(name: "noble.iso"))
    ///     .download(to: URL(filePath: "/var/cache/noble.iso"))
    /// print(file.byteCount)
    /// ```
    ///
    /// - Parameters:
    ///   - destination: a file URL; its directory must exist and be writable.
    ///   - options: how many times to continue after a dropped connection, and a limit on the
    ///     whole run.
    /// - Throws: as ``stream()`` before the body; ``CourierError/transport(_:)`` with a
    ///   ``TransportFailure/Kind/fileSystem`` failure when the file cannot be written (disk
    ///   full, no permission: the message names the file and the reason), with
    ///   ``TransportFailure/Kind/badResponse`` when the server sends more than it announced or
    ///   keeps answering ranges inconsistently, the last connection failure once the attempts
    ///   are spent; ``CourierError/cancelled`` when the task is cancelled.
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
