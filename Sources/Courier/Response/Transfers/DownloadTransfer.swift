import Foundation

/// One run of a download to disk: requests the body (with a range when bytes of the same
/// version are on disk), writes it to the partial file, continues after a dropped connection,
/// restarts when the resource changed, and moves the file into place once it is whole.
///
/// Memory stays bounded whatever the size: each chunk is written as it arrives and the body has
/// the transport's backpressure (or spills to disk, on corelibs URLSession).
struct DownloadTransfer: Sendable {
    let call: Call
    let destination: URL
    let options: DownloadOptions
    let meter: ProgressMeter?
    var resumeData: DownloadResumeData?
    var control: DownloadControl?

    init(
        call: Call, destination: URL, options: DownloadOptions, meter: ProgressMeter?, resumeData: DownloadResumeData? = nil,
        control: DownloadControl? = nil
    ) {
        self.call = call
        self.destination = destination
        self.options = options
        self.meter = meter
        self.resumeData = resumeData
        self.control = control
    }

    /// How a run ended, short of an error.
    enum Outcome: Sendable {
        case finished(DownloadedFile)
        /// Stopped by ``DownloadControl/requestPause()``.
        case paused(DownloadResumeData)
    }

    /// Runs to the end; a pause (which only a ``Download`` can ask for) ends it as cancelled.
    func run() async throws(CourierError) -> DownloadedFile {
        switch try await perform() {
        case .finished(let file): return file
        case .paused: throw .cancelled
        }
    }

    /// How one response's body ended.
    private enum BodyEnd {
        case complete(Int64)
        case interrupted(Int64, CourierError)
    }

    func perform() async throws(CourierError) -> Outcome {
        let paths = DownloadPaths(destination: destination)
        let configuration = call.client.configuration
        let url = try RequestBuilder.build(call.endpoint, configuration: configuration).url
        let lock = try DownloadLock(paths)
        defer { withExtendedLifetime(lock) {} }
        var saved = resumeData ?? paths.loadState()
        if let state = saved, state.url != url || state.temporaryFile.standardizedFileURL != paths.temporary {
            saved = nil  // another resource, or another file: nothing on disk is ours to continue
        }
        // The timeout limits the wait for the head and each gap in the body, not the transfer.
        let waits = BodyIdleTimeout(timeout: call.endpoint.timeout ?? configuration.timeout, clock: configuration.clock)
        let elapsed = ElapsedTime(configuration.clock)
        var attempts = 0
        var resumeCount = 0
        while true {
            let remaining = try remainingDuration(elapsed, url: url)
            // Continue only from bytes of a known version, all still on disk, in a file of ours.
            var offset: Int64 = 0
            var partial: DownloadFile?
            let validator = saved?.validator
            if let state = saved, validator != nil, let file = try paths.openPartial() {
                if file.size >= state.receivedBytes, file.size <= (state.expectedBytes ?? .max) {
                    offset = file.size
                    partial = file
                }
            }
            var headers = [HeaderItem(name: "Accept-Encoding", value: "identity")]
            if offset > 0, let validator {
                headers.append(HeaderItem(name: "Range", value: "bytes=\(offset)-"))
                headers.append(HeaderItem(name: "If-Range", value: validator))
            }
            let recordedTotal = offset > 0 ? saved?.expectedBytes : nil
            let paused = DownloadResumeData(
                url: url, validator: validator, receivedBytes: offset, expectedBytes: saved?.expectedBytes, temporaryFile: paths.temporary)

            let response: StreamedResponse
            do throws(CourierError) {
                var options = call.options
                options.collectsBody = false
                options.replaceHeaders(with: headers)
                let (endpoint, client) = (call.endpoint, call.client)
                response = try await waits.send(url: url, total: remaining) { [options] timeout async throws(CourierError) in
                    var options = options
                    options.timeout = timeout
                    return try await client.send(endpoint, options: options)
                }
            } catch {
                if case .response(let refused) = error, refused.statusCode == 416, offset > 0, let partial {
                    let decision = RangeDecision.decide(
                        status: 416, headers: refused.headers, requestedOffset: offset, validator: validator, expectedLength: nil,
                        recordedTotal: recordedTotal)
                    if decision == .complete {
                        try partial.synchronize()
                        try paths.commit(partial)
                        let ticker = ProgressTicker(meter)
                        ticker.force(offset, of: offset)
                        return .finished(
                            DownloadedFile(
                                location: paths.destination, byteCount: offset, status: refused.status, headers: refused.headers,
                                resumeCount: resumeCount + 1))
                    }
                    paths.removeLeftovers()
                    saved = nil
                    attempts += 1
                    if attempts > options.maximumResumeAttempts { throw error }
                    continue
                }
                if case .cancelled = error, control?.isPauseRequested == true { return .paused(paused) }
                guard Self.isResumable(error, afterHead: false), attempts < options.maximumResumeAttempts else { throw error }
                attempts += 1
                continue
            }

            let decision = RangeDecision.decide(
                status: response.statusCode, headers: response.headers, requestedOffset: offset, validator: validator,
                expectedLength: response.body.expectedLength.map(Int64.init), recordedTotal: recordedTotal)
            guard case .write(let start, let total) = decision else {
                response.body.cancel()
                paths.removeLeftovers()
                saved = nil
                attempts += 1
                if attempts > options.maximumResumeAttempts, case .restart(let reason) = decision {
                    throw .transport(TransportFailure(synthesizing: .badResponse, url: url.redactedForErrors, message: reason))
                }
                continue
            }
            if start > 0 { resumeCount += 1 }
            // A body the server encoded (ignoring `Accept-Encoding: identity`) arrives decoded: it
            // gets no validator, so a drop starts it over instead of asking for a range.
            let freshValidator = RangeDecision.isEncoded(response.headers) ? nil : RangeDecision.validator(in: response.headers)
            var state = DownloadResumeData(
                url: url, validator: start > 0 ? validator : freshValidator, receivedBytes: start, expectedBytes: total,
                temporaryFile: paths.temporary)
            let file: DownloadFile
            do throws(CourierError) {
                if start > 0, let partial {
                    file = partial
                    try file.truncate(to: start)
                } else {
                    file = try paths.createPartial()
                }
                // Saved before the body, so that a crash mid-way leaves a download that continues.
                if state.validator != nil { try paths.save(state) } else { paths.removeState() }
            } catch {
                response.body.cancel()
                throw error
            }

            switch try await write(response.body, to: file, from: start, total: total, paths: paths, url: url) {
            case .complete(let received):
                try file.synchronize()
                try paths.commit(file)
                let ticker = ProgressTicker(meter)
                ticker.force(received, of: total ?? received)
                return .finished(
                    DownloadedFile(
                        location: paths.destination, byteCount: received, status: response.status, headers: response.headers,
                        resumeCount: resumeCount))
            case .interrupted(let received, let error):
                // Keep what arrived, synced, with a record of it: a later run (or this one) goes on from there.
                try? file.synchronize()
                state.receivedBytes = received
                if state.validator != nil { try? paths.save(state) } else { paths.removeLeftovers() }
                if case .cancelled = error {
                    if control?.isPauseRequested == true { return .paused(state) }
                    throw error
                }
                guard Self.isResumable(error, afterHead: true), attempts < options.maximumResumeAttempts else { throw error }
                attempts += 1
                saved = state.validator == nil ? nil : state
            }
        }
    }

    /// What is left of ``DownloadOptions/maximumDuration`` (`nil`: no limit).
    /// - Throws: a ``TransportFailure/Kind/timedOut`` failure once it has run out.
    private func remainingDuration(_ elapsed: ElapsedTime, url: URL) throws(CourierError) -> Duration? {
        guard let limit = options.maximumDuration else { return nil }
        let remaining = limit - elapsed.now()
        guard remaining > .zero else {
            throw .transport(
                TransportFailure(
                    synthesizing: .timedOut, url: url.redactedForErrors,
                    message: "the download did not complete within its maximum duration of \(limit); the bytes so far are kept for the next run"))
        }
        return remaining
    }

    /// Writes `body` to `file` after `start` bytes. Throws what cannot be continued (the disk,
    /// a body longer than announced); returns how a dropped or cancelled transfer ended.
    private func write(
        _ body: ResponseBody, to file: DownloadFile, from start: Int64, total: Int64?, paths: DownloadPaths, url: URL
    ) async throws(CourierError) -> BodyEnd {
        let ticker = ProgressTicker(meter)
        ticker.force(start, of: total)
        var received = start
        var iterator = body.makeAsyncIterator()
        while true {
            let chunk: Data?
            do throws(CourierError) {
                chunk = try await iterator.next()
            } catch {
                return .interrupted(received, error)
            }
            guard let chunk else { break }
            if let total, Int64(chunk.count) > total - received {
                body.cancel()
                paths.removeLeftovers()
                throw .transport(
                    TransportFailure(
                        synthesizing: .badResponse, url: url.redactedForErrors,
                        message: "the server sent more than the \(total) bytes it announced; the partial file was removed"))
            }
            do throws(CourierError) {
                try file.write(chunk)
            } catch {
                body.cancel()
                throw error
            }
            received += Int64(chunk.count)
            ticker.advance(to: received, of: total)
        }
        if let total, received < total {
            return .interrupted(
                received,
                .transport(
                    TransportFailure(
                        synthesizing: .connectionLost, url: url.redactedForErrors,
                        message: "the body ended after \(received) of \(total) bytes")))
        }
        return .complete(received)
    }

    /// Whether `error` is worth continuing after: the connection, not the request or the disk.
    /// Once the head arrived, any transport failure but those two is a transfer cut short: both
    /// transports report a connection closed mid-body as `.other` (async-http-client: "stream
    /// ended at an unexpected time"; corelibs URLSession: `URLError.unknown`).
    static func isResumable(_ error: CourierError, afterHead: Bool) -> Bool {
        guard case .transport(let failure) = error else { return false }
        switch failure.kind {
        case .connectionLost, .timedOut, .cannotConnect, .badResponse: return true
        case .other: return afterHead
        case .dnsFailure, .secureConnectionFailed, .pinningFailed, .responseTooLarge, .fileSystem: return false
        }
    }
}

/// What a ``Download`` tells its running transfer: a pause was asked for, so a cancellation
/// stops it with resume data rather than as cancelled.
final class DownloadControl: Sendable {
    private let pause = LockedState(false)

    var isPauseRequested: Bool { pause.withLock { $0 } }

    func requestPause() { pause.withLock { $0 = true } }

    func reset() { pause.withLock { $0 = false } }
}
