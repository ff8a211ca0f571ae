#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL

    /// One response of an ``AsyncHTTPClientTransport`` after its head: a task that pulls the body
    /// from async-http-client into a ``ChunkBuffer`` for the reader, under the call's deadline.
    ///
    /// The pull is what gives backpressure: while the buffer is full the task waits, so
    /// async-http-client stops reading the socket. Stopping the task (the reader cancelled or
    /// dropped the body, the deadline passed, the body grew past the limit) cancels the request
    /// on the wire.
    ///
    /// `@unchecked Sendable`: mutable state is in `state`, behind its lock, except `buffer`, a weak
    /// reference written once in ``start(_:deadline:)`` before the pull task or the deadline can
    /// read it (the `DeadlineScheduler`'s lock and the task's creation order the write first).
    final class AsyncHTTPClientExchange: ChunkProducer, DeadlineExpiring, @unchecked Sendable {
        private struct State {
            var task: Task<Void, Never>?
            var paused = false
            var resumeWaiter: CheckedContinuation<Void, Never>?
            /// Why the pull was stopped from outside, if it was.
            var stop: CourierError?
        }

        private let url: URL
        private let maximumResponseSize: Int?
        private let state = LockedState(State())
        /// Written once in ``start(_:deadline:)``, before the pull starts; read by the pull and by
        /// ``stop(_:)``.
        private weak var buffer: ChunkBuffer?
        /// The transport, kept alive while its response streams: it shuts its client down when it
        /// goes, which would cut the body off.
        private let transport: AsyncHTTPClientTransport

        init(transport: AsyncHTTPClientTransport, url: URL, maximumResponseSize: Int?) {
            self.transport = transport
            self.url = url
            self.maximumResponseSize = maximumResponseSize
        }

        /// The response for the caller: its head, and a body read by a new task.
        /// - Throws: ``TransportFailure/Kind/responseTooLarge`` for a body announced past the
        ///   limit (nothing of it is read).
        func start(_ response: HTTPClientResponse, deadline: DispatchTime) throws(CourierError) -> StreamedResponse {
            var headers = HTTPFields()
            for header in response.headers {
                if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
            }
            let encoded = response.headers.contains(name: "Content-Encoding")
            let announced = encoded ? nil : response.headers.first(name: "Content-Length").flatMap { Int($0) }
            if let announced, let maximumResponseSize, announced > maximumResponseSize {
                throw .transport(.responseTooLarge(limit: maximumResponseSize, url: url))
            }
            let buffer = ChunkBuffer(producer: self, canPause: true)
            self.buffer = buffer
            DeadlineScheduler.shared.add(self, at: deadline)
            // Started on this thread: a short body is usually in async-http-client's buffer already,
            // so the pull often reads it to its end before `send` even returns, and the reader then
            // never waits (measured: the hop to a new task was most of this transport's cost).
            let task: Task<Void, Never>
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) {
                task = Task.immediate { await self.pull(response.body) }
            } else {
                task = Task { await self.pull(response.body) }
            }
            // A deadline that passed before the task existed stops it now.
            let stoppedEarly = state.withLock { state in
                state.task = task
                return state.stop != nil
            }
            if stoppedEarly { task.cancel() }
            let status = HTTPResponse.Status(code: Int(response.status.code))
            return StreamedResponse(status: status, headers: headers, body: ResponseBody(source: buffer, expectedLength: announced), url: url)
        }

        /// Moves the body into the buffer, chunk by chunk, waiting while the buffer is full.
        private func pull(_ body: HTTPClientResponse.Body) async {
            var received = 0
            var end: Result<Void, CourierError> = .success(())
            do {
                for try await bytes in body {
                    guard let buffer else { break }  // the reader dropped the body
                    received += bytes.readableBytes
                    if let maximumResponseSize, received > maximumResponseSize {
                        end = .failure(.transport(.responseTooLarge(limit: maximumResponseSize, url: url)))
                        break
                    }
                    buffer.append(Data(bytes.readableBytesView))
                    await waitWhilePaused()
                    if Task.isCancelled { break }
                }
            } catch {
                end = .failure(Self.failure(error, url: url))
            }
            DeadlineScheduler.shared.remove(self)
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
            let (task, waiter) = state.withLock { state in
                if state.stop == nil { state.stop = reason }
                return (state.task, state.resumeWaiter.take())
            }
            waiter?.resume()
            task?.cancel()
            if case .transport = reason { buffer?.finish(.failure(reason)) }
        }

        /// What an async-http-client error means for Courier. The failure carries the `URLError`
        /// URLSession would have reported (``TransportFailure/init(synthesizing:url:message:)``).
        static func failure(_ error: any Error, url: URL) -> CourierError {
            if let error = error as? CourierError { return error }
            if error is CancellationError { return .cancelled }
            if let error = error as? PinningFailure { return .transport(error.transportFailure(url: url)) }
            if let error = error as? HTTPClientError, error == .cancelled { return .cancelled }
            return .transport(TransportFailure(synthesizing: kind(of: error), url: url, message: String(describing: error)))
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
            case is ChannelError, is IOError: .cannotConnect
            default: .other
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
