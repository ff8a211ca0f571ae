#if AsyncHTTPClientLinked
    import AsyncHTTPClient
    import Foundation
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import NIOHTTPCompression
    import NIOPosix
    import NIOSSL

    /// One response of an ``AsyncHTTPClientTransport`` after its head: a task that pulls the body
    /// from async-http-client, under the call's deadline.
    ///
    /// A body announced short (``wholeBodyLimit`` bytes or fewer, not encoded) is read whole before
    /// `send` returns, as ``URLSessionTransport`` does: the pull collects it into one `Data`, and the
    /// caller gets it with the head. Any other body streams through a ``ChunkBuffer`` to its reader.
    ///
    /// The pull is what gives backpressure: while the buffer is full the task waits, so
    /// async-http-client stops reading the socket. Stopping the task (the reader cancelled or
    /// dropped the body, the deadline passed, the body grew past the limit) cancels the request
    /// on the wire.
    ///
    /// `@unchecked Sendable`: mutable state is in `state`, behind its lock, except `buffer`, a weak
    /// reference written once in ``start(_:deadline:)`` before the pull task or the deadline can
    /// read it (the `DeadlineScheduler`'s lock and the task's creation order the write first).
    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    final class AsyncHTTPClientExchange: ChunkProducer, DeadlineExpiring, @unchecked Sendable {
        private struct State {
            var task: Task<Void, Never>?
            /// The pull of a body read whole, once started.
            var wholeTask: Task<Result<Data, CourierError>, Never>?
            var paused = false
            var resumeWaiter: CheckedContinuation<Void, Never>?
            /// Why the pull was stopped from outside, if it was.
            var stop: CourierError?
            /// A body read whole: whether its pull has ended, and whether its deadline was scheduled.
            var wholeRead = false
            var scheduled = false
        }

        /// The longest body (announced by `Content-Length`, not encoded) read whole before `send`
        /// returns, as in ``URLSessionExchange/wholeBodyLimit``.
        static let wholeBodyLimit = 256 << 10

        /// Where the response comes from, reported in its failures (its URL parsed only then).
        private let location: ResponseLocation
        private var url: URL { location.url }
        private let maximumResponseSize: Int?
        private let state = LockedState(State())
        /// Written once in ``start(_:deadline:)``, before the pull starts; read by the pull and by
        /// ``stop(_:)``.
        private weak var buffer: ChunkBuffer?
        /// The transport, kept alive while its response streams: it shuts its client down when it
        /// goes, which would cut the body off.
        private let transport: AsyncHTTPClientTransport

        /// The request body's lifetime, ended with the exchange: async-http-client does not stop
        /// reading an upload when the request ends.
        private let upload: RequestBodyLifetime?

        /// Whether the request was a `HEAD`, whose response carries no body whatever its
        /// `Content-Length` says.
        private let isHead: Bool

        /// Whether async-http-client hands the body over as it arrived (its decompression is off
        /// for this request), so that a `gzip` or `deflate` body is inflated here (``BodyInflater``).
        private let inflates: Bool

        init(
            transport: AsyncHTTPClientTransport, location: ResponseLocation, maximumResponseSize: Int?, upload: RequestBodyLifetime?,
            isHead: Bool = false, inflates: Bool = false
        ) {
            self.transport = transport
            self.location = location
            self.maximumResponseSize = maximumResponseSize
            self.upload = upload
            self.isHead = isHead
            self.inflates = inflates
        }

        /// The response for the caller: its head, and a body read by a new task.
        /// - Throws: ``TransportFailure/Kind/responseTooLarge`` for a body announced past the
        ///   limit (nothing of it is read).
        func start(_ response: HTTPClientResponse, deadline: DispatchTime) async throws(CourierError) -> StreamedResponse {
            // One pass over the head: the fields, and the two that decide how the body is read.
            var headers = HTTPFields()
            headers.reserveCapacity(response.headers.count)
            var contentEncoding: String?
            var contentLength: String?
            for header in response.headers {
                guard let name = Self.fieldName(header.name) else { continue }
                headers.append(HTTPField(name: name, value: header.value))
                if name == .contentEncoding {
                    if contentEncoding == nil { contentEncoding = header.value }
                } else if name == .contentLength, contentLength == nil {
                    contentLength = header.value
                }
            }
            // A HEAD response, and a 1xx, 204 or 304, has no body (RFC 9110 §6.4.1): its
            // `Content-Length` describes another response and is no reason to fail. Its empty body
            // is read whole, which ends the exchange and keeps the connection for the next request.
            let bodiless = isHead || StreamedResponse.carriesNoBody(status: Int(response.status.code))
            let announced = bodiless ? 0 : contentEncoding != nil ? nil : contentLength.flatMap { Int($0) }
            if let announced, let maximumResponseSize, announced > maximumResponseSize {
                upload?.end()
                throw .transport(.responseTooLarge(limit: maximumResponseSize, url: url))
            }
            let status = HTTPResponse.Status(code: Int(response.status.code))
            if let announced, announced <= Self.wholeBodyLimit {
                let body = try await readWhole(response.body, announced: announced, deadline: deadline)
                return StreamedResponse(status: status, headers: headers, body: ResponseBody(body), location: location)
            }
            let buffer = ChunkBuffer(producer: self, canPause: true)
            self.buffer = buffer
            DeadlineScheduler.shared.add(self, at: deadline)
            // Started on this thread: a short body is usually in async-http-client's buffer already,
            // so the pull often reads it to its end before `send` even returns, and the reader then
            // never waits (measured: the hop to a new task was most of this transport's cost).
            // Detached: the pull needs none of the caller's task-local values, and copying them
            // into a new task costs several allocations. Resumed on the event loop that delivers
            // its bytes (see ``EventLoopResumingExecutor``).
            let task: Task<Void, Never>
            let inflating = inflates && BodyInflater.inflates(contentEncoding: contentEncoding)
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                task = Task.immediateDetached(priority: Task.currentPriority, executorPreference: EventLoopResumingExecutor.shared) {
                    await self.pull(response.body, inflating: inflating)
                }
            } else {
                task = Task { await self.pull(response.body, inflating: inflating) }
            }
            // A deadline that passed before the task existed stops it now.
            let stoppedEarly = state.withLock { state in
                state.task = task
                return state.stop != nil
            }
            if stoppedEarly { task.cancel() }
            return StreamedResponse(status: status, headers: headers, body: ResponseBody(source: buffer, expectedLength: announced), location: location)
        }

        /// Reads a short body whole, under the deadline and the calling task's cancellation.
        ///
        /// The read runs in a task of its own, started on this thread: when the body came with
        /// the head, it is read to its end before the task would suspend, so the caller then finds
        /// it done and nothing was scheduled. Only a pull that has to wait for bytes gets the
        /// deadline (which cancels it, and so the request); cancelling the caller cancels it too.
        ///
        /// A pull that waits (about half of them: the caller often resumes with the head before
        /// the event loop has handed over the rest of the same read) is resumed on that event loop
        /// (``EventLoopResumingExecutor``), so that the body costs one hand-off to the caller, as
        /// for a caller that reads it itself, not two.
        private func readWhole(_ body: HTTPClientResponse.Body, announced: Int, deadline: DispatchTime) async throws(CourierError) -> Data {
            let task: Task<Result<Data, CourierError>, Never>
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                task = Task.immediateDetached(priority: Task.currentPriority, executorPreference: EventLoopResumingExecutor.shared) {
                    await self.collect(body, announced: announced)
                }
            } else {
                task = Task { await self.collect(body, announced: announced) }
            }
            // Scheduled under the lock, so that the pull's end (which takes it to unschedule)
            // cannot come between the check and the scheduling.
            let stoppedEarly = state.withLock { state in
                state.wholeTask = task
                if !state.wholeRead {
                    state.scheduled = true
                    DeadlineScheduler.shared.add(self, at: deadline)
                }
                return state.stop != nil
            }
            if stoppedEarly { task.cancel() }
            return try await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }.get()
        }

        /// The pull of a body read whole: its bytes, in one `Data`.
        private func collect(_ body: HTTPClientResponse.Body, announced: Int) async -> Result<Data, CourierError> {
            var data = Data()
            data.reserveCapacity(announced)
            var end: Result<Data, CourierError>
            do {
                for try await bytes in body {
                    if let maximumResponseSize, bytes.readableBytes > maximumResponseSize - data.count {
                        throw CourierError.transport(.responseTooLarge(limit: maximumResponseSize, url: url))
                    }
                    data.append(contentsOf: bytes.readableBytesView)
                }
                end = .success(data)
            } catch {
                end = .failure(Self.failure(error, url: url, limit: maximumResponseSize))
            }
            let stop = state.withLock { state in
                state.wholeRead = true
                if state.scheduled { DeadlineScheduler.shared.remove(self) }
                return state.stop
            }
            upload?.end()
            // A stop from outside (deadline, cancellation) names the reason better than the error
            // the cancelled read threw.
            if let stop { return .failure(stop) }
            return end
        }

        /// A response header's name: the common ones, spelt as usual, without validating and
        /// lower-casing them again (the same names `HTTPField.Name("…")` would make).
        static func fieldName(_ name: String) -> HTTPField.Name? {
            switch name {
            case "Content-Type": .contentType
            case "Content-Length": .contentLength
            case "Date": .date
            case "Server": .server
            case "Connection": .connection
            case "ETag": .eTag
            case "Last-Modified": .lastModified
            case "Accept-Ranges": .acceptRanges
            case "Cache-Control": .cacheControl
            case "Content-Encoding": .contentEncoding
            case "Transfer-Encoding": .transferEncoding
            case "Vary": .vary
            case "Expires": .expires
            case "Age": .age
            case "Location": .location
            case "Set-Cookie": .setCookie
            default: HTTPField.Name(name)
            }
        }

        /// Moves the body into the buffer, chunk by chunk, waiting while the buffer is full;
        /// `inflating`, a piece of the inflated body at a time (``BodyInflater``).
        private func pull(_ body: HTTPClientResponse.Body, inflating: Bool) async {
            var received = 0
            var end: Result<Void, CourierError> = .success(())
            do {
                let inflater = inflating ? try BodyInflater() : nil
                for try await bytes in body {
                    guard let buffer else { break }  // the reader dropped the body
                    received += bytes.readableBytes
                    if let maximumResponseSize, received > maximumResponseSize {
                        end = .failure(.transport(.responseTooLarge(limit: maximumResponseSize, url: url)))
                        break
                    }
                    if let inflater {
                        let goesOn = try await inflater.inflate(bytes) { piece in
                            guard let buffer = self.buffer else { return false }
                            buffer.append(piece)
                            await waitWhilePaused()
                            return !Task.isCancelled
                        }
                        if !goesOn { break }
                    } else {
                        buffer.append(Data(bytes.readableBytesView))
                        await waitWhilePaused()
                    }
                    if Task.isCancelled { break }
                }
                if let inflater, !Task.isCancelled, self.buffer != nil, case .success = end { try inflater.finish() }
            } catch {
                end = .failure(Self.failure(error, url: url, limit: maximumResponseSize))
            }
            DeadlineScheduler.shared.remove(self)
            upload?.end()
            // A stop from outside (deadline, cancellation) names the reason better than the error
            // the cancelled read threw.
            if let stop = state.withLock({ $0.stop }) { end = .failure(stop) }
            buffer?.finish(end)
        }

        private func waitWhilePaused() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    let waits = state.withLock { state in
                        guard state.paused, state.stop == nil else { return false }
                        state.resumeWaiter = waiter
                        return true
                    }
                    if !waits { waiter.resume() }
                }
            } onCancel: {
                state.withLock { $0.resumeWaiter.take() }?.resume()
            }
        }

        // MARK: ChunkProducer

        func pauseProducing() {
            state.withLock { $0.paused = true }
        }

        func resumeProducing() {
            let waiter = state.withLock { state in
                state.paused = false
                return state.resumeWaiter.take()
            }
            waiter?.resume()
        }

        func stopProducing() {
            stop(.cancelled)
        }

        func timeOut() {
            stop(.transport(TransportFailure(kind: .timedOut, url: url, message: "the response body did not arrive in time")))
        }

        /// Stops the pull (and so the request) for `reason`; the first reason wins.
        private func stop(_ reason: CourierError) {
            let (task, wholeTask, waiter) = state.withLock { state in
                if state.stop == nil { state.stop = reason }
                return (state.task, state.wholeTask, state.resumeWaiter.take())
            }
            waiter?.resume()
            task?.cancel()
            wholeTask?.cancel()
            if case .transport = reason { buffer?.finish(.failure(reason)) }
        }

        /// What an async-http-client error means for Courier. The failure carries the `URLError`
        /// URLSession would have reported (``TransportFailure/init(synthesizing:url:message:)``).
        @inline(never)
        ///
        /// async-http-client's decompression limit (``AsyncHTTPClientTransport/decompressionLimit(for:)``)
        /// is the response size limit, `limit`, seen before the inflated bytes reach Courier.
        static func failure(_ error: any Error, url: URL, limit: Int? = nil) -> CourierError {
            if let error = error as? CourierError { return error }
            if let error = error as? NIOHTTPDecompression.DecompressionError, error == .limit {
                let message = "the response body exceeded the limit\(limit.map { " of \($0) bytes" } ?? "") while it was decompressed"
                return .transport(TransportFailure(kind: .responseTooLarge, url: url, message: message))
            }
            if error is CancellationError { return .cancelled }
            if let error = error as? PinningFailure { return .transport(error.transportFailure(url: url)) }
            if let error = error as? HTTPClientError, error == .cancelled { return .cancelled }
            return .transport(
                TransportFailure(synthesizing: kind(of: error), url: url, message: message(of: error), underlyingError: error))
        }

        /// A readable message for an async-http-client, SwiftNIO or NIOSSL error. A failed
        /// connection reads `cannot connect to 127.0.0.1:8080: Connection refused (errno 111)`,
        /// not SwiftNIO's `Connection errors: SingleConnectionFailure(target: [IPv4]…, error:
        /// connect(descriptor:addr:size:): Connection refused) (errno: 111))`.
        static func message(of error: any Error) -> String {
            switch error {
            case let error as NIOConnectionError:
                if let dns = error.dnsAError ?? error.dnsAAAAError, error.connectionErrors.isEmpty {
                    return "cannot resolve \(error.host): \(dns)"
                }
                guard !error.connectionErrors.isEmpty else { return "cannot connect to \(error.host):\(error.port)" }
                let attempts = error.connectionErrors.map { failure in
                    (address: failure.target.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? error.host, reason: message(of: failure.error))
                }
                // One address, or the same reason for every address: said once.
                if Set(attempts.map(\.reason)).count == 1, let reason = attempts.first?.reason {
                    let addresses = attempts.map(\.address)
                    let isTheHost = addresses.count == 1 && (addresses[0] == error.host || addresses[0] == "[\(error.host)]")
                    let named = isTheHost ? "\(addresses[0]):\(error.port)" : "\(error.host):\(error.port) (\(addresses.joined(separator: ", ")))"
                    return "cannot connect to \(named): \(reason)"
                }
                let each = attempts.map { "\($0.address): \($0.reason)" }.joined(separator: "; ")
                return "cannot connect to \(error.host):\(error.port): \(each)"
            case let error as IOError:
                return "\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))"
            default:
                return String(describing: error)
            }
        }

        /// The class of an async-http-client, SwiftNIO or NIOSSL error.
        static func kind(of error: any Error) -> TransportFailure.Kind {
            switch error {
            case let error as HTTPClientError:
                switch error {
                case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout, .getConnectionFromPoolTimeout: .timedOut
                case .remoteConnectionClosed: .connectionLost
                default: .other
                }
            case let error as NIOConnectionError:
                // Every address lookup failed and nothing was tried: the name did not resolve.
                error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil) ? .dnsFailure : .cannotConnect
            // NIOSSLExtraError carries host-name validation (a certificate for another name) and
            // SNI failures; NIOSSLError the handshake and chain validation.
            case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: .secureConnectionFailed
            case let error as IOError: kind(ofErrno: error.errnoCode)
            case let error as ChannelError:
                switch error {
                case .connectTimeout: .timedOut
                // The connection was up and went away: what was sent may have been processed.
                case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: .connectionLost
                default: .cannotConnect
                }
            default: .other
            }
        }

        /// The class of a system call's failure: a reset or a broken pipe ends a connection that
        /// was up (the request may have reached the server, so it is not `cannotConnect`, which
        /// promises nothing was sent); a refusal or an unreachable address is a connection that
        /// never was.
        static func kind(ofErrno code: CInt) -> TransportFailure.Kind {
            // Only the errors of setting a connection up say that nothing was sent; any other
            // may come from a connection that was up, whose request the server may have read
            // (an OAuth2 form POST is sent again only after `cannotConnect`).
            switch code {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, EAFNOSUPPORT, ENETDOWN: .cannotConnect
            case ETIMEDOUT: .timedOut
            default: .connectionLost
            }
        }
    }

    /// Runs a task where it was resumed: on the event loop whose thread resumed it (after what
    /// that loop is doing now), or on the global concurrent pool when no event loop did.
    ///
    /// For the tasks that pull response bodies: async-http-client resumes them on the
    /// connection's event loop when bytes arrive, and running the pull right there (it only moves
    /// bytes into a buffer and resumes the reader) saves a hand-off to the pool and back.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    final class EventLoopResumingExecutor: TaskExecutor {
        static let shared = EventLoopResumingExecutor()

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            if let eventLoop = MultiThreadedEventLoopGroup.currentEventLoop {
                eventLoop.execute { job.runSynchronously(on: executor) }
            } else {
                DispatchQueue.global().async { job.runSynchronously(on: executor) }
            }
        }
    }

    extension Optional {
        /// The value, leaving `nil` behind.
        fileprivate mutating func take() -> Wrapped? {
            defer { self = nil }
            return self
        }
    }
#endif
