package import Foundation

/// A download to disk that can be paused and resumed (made by ``Call/makeDownload(to:options:resumingFrom:)``).
///
/// ``pause()`` stops the transfer, syncs the partial file and returns the
/// ``DownloadResumeData``; ``start()`` continues with a `Range` request from the bytes on
/// disk. ``finished()`` waits for the end: a complete file at the destination, or the error.
/// Dropped connections are continued by themselves, as for ``Call/download(to:options:)``.
///
/// ```swift
/// let download = client.enqueue(GetImage(name: "noble.iso")).makeDownload(to: destination)
/// Task { for await progress in download.progress { print(progress) } }
/// await download.start()
/// // … the user taps Pause:
/// if let resumeData = await download.pause() { print("paused at \(resumeData.receivedBytes) bytes") }
/// // … and Resume:
/// await download.start()
/// let file = try await download.finished()
/// ```
public actor Download {
    /// Where the file will be.
    package nonisolated let destination: URL
    /// The download's progress, across pauses: it ends when the download completes, fails or is
    /// cancelled.
    public nonisolated let progress: TransferProgressUpdates

    /// Where a download is.
    public enum State: Sendable {
        /// Not started.
        case ready
        /// Transferring.
        case running
        /// Paused; ``Download/start()`` continues from this.
        case paused(DownloadResumeData)
        /// Complete: the file is in place.
        case finished(DownloadedFile)
        /// Ended with this error (``Download/cancel()`` gives ``CourierError/cancelled``).
        case failed(CourierError)
    }

    /// Where the download is now.
    public private(set) var state: State = .ready

    private let call: Call
    private let options: DownloadOptions
    private let meter: ProgressMeter
    private var resumeData: DownloadResumeData?
    private var running: (task: Task<Result<DownloadTransfer.Outcome, CourierError>, Never>, control: DownloadControl, generation: Int)?
    private var generation = 0
    private var waiters: [CheckedContinuation<Result<DownloadedFile, CourierError>, Never>] = []

    init(call: Call, destination: URL, options: DownloadOptions, resumeData: DownloadResumeData?) {
        self.call = call
        self.destination = destination
        self.options = options
        self.resumeData = resumeData
        (progress, meter) = ProgressMeter.makeUpdates(.download)
    }

    /// Starts the transfer, or continues a paused one. Does nothing while it runs or once it ended.
    public func start() {
        switch state {
        case .ready, .paused: break
        case .running, .finished, .failed: return
        }
        generation += 1
        let control = DownloadControl()
        let transfer = DownloadTransfer(
            call: call, destination: destination, options: options, meter: meter, resumeData: resumeData, control: control)
        let task = Task { () -> Result<DownloadTransfer.Outcome, CourierError> in
            do throws(CourierError) {
                return .success(try await transfer.perform())
            } catch {
                return .failure(error)
            }
        }
        running = (task, control, generation)
        state = .running
        let current = generation
        Task {
            let outcome = await task.value
            self.ended(current, with: outcome)
        }
    }

    /// Stops the transfer and returns what continues it, once the partial file is synced and the
    /// state saved next to it; `nil` when there is nothing to pause (not running, or it ended
    /// first).
    public func pause() async -> DownloadResumeData? {
        guard case .running = state, let running else { return nil }
        running.control.requestPause()
        running.task.cancel()
        ended(running.generation, with: await running.task.value)
        if case .paused(let data) = state { return data }
        return nil
    }

    /// Stops the download for good and removes the partial file and its saved state; waiters of
    /// ``finished()`` get ``CourierError/cancelled``. Does nothing once it ended. The files are
    /// removed only while no other download to the same destination runs: they are then its own.
    public func cancel() async {
        switch state {
        case .finished, .failed: return
        case .ready, .paused: break
        case .running:
            if let running {
                running.task.cancel()
                _ = await running.task.value
            }
        }
        running = nil
        // Only under the destination's lock: another download to it may be writing these files.
        let paths = DownloadPaths(destination: destination)
        if let lock = try? DownloadLock(paths) {
            paths.removeLeftovers()
            withExtendedLifetime(lock) {}
        }
        end(.failure(.cancelled))
    }

    /// Waits until the download ends (a pause is not an end) and returns the file.
    /// - Throws: the error that ended the download (see ``Call/download(to:options:)``),
    ///   or ``CourierError/cancelled`` after ``cancel()``. Cancelling the waiting task does not
    ///   stop the download; it goes on for other waiters.
    public func finished() async throws(CourierError) -> DownloadedFile {
        switch state {
        case .finished(let file): return file
        case .failed(let error): throw error
        case .ready, .running, .paused: break
        }
        return try await withCheckedContinuation { waiters.append($0) }.get()
    }

    /// Applies the outcome of the transfer of `generation`, once.
    private func ended(_ generation: Int, with outcome: Result<DownloadTransfer.Outcome, CourierError>) {
        guard let running, running.generation == generation else { return }
        self.running = nil
        switch outcome {
        case .success(.paused(let data)):
            resumeData = data
            state = .paused(data)
        case .success(.finished(let file)):
            end(.success(file))
        case .failure(let error):
            end(.failure(error))
        }
    }

    private func end(_ result: Result<DownloadedFile, CourierError>) {
        switch result {
        case .success(let file): state = .finished(file)
        case .failure(let error): state = .failed(error)
        }
        meter.end()
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume(returning: result) }
    }
}
