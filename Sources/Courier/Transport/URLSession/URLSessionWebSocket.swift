import Foundation
import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport: WebSocketTransport {
    /// Opens the socket with a `URLSessionWebSocketTask` of this transport's session (its TLS
    /// settings and pins apply). URLSession gives no body for a refused upgrade: its status and
    /// headers come back with an empty body.
    package func openWebSocket(_ request: TransportRequest, upgrade: WebSocketUpgrade) async throws(CourierError) -> StreamedResponse {
        #if !canImport(Darwin)
            // corelibs' URLSessionWebSocketTask needs a libcurl built with WebSocket support, which
            // Linux distributions do not ship.
            throw .invalidRequest(
                .webSocketUnavailable("URLSession on Linux cannot open WebSockets (libcurl has no WebSocket support); use AsyncHTTPClientTransport"))
        #else
            if Task.isCancelled { throw .cancelled }
            guard let url = request.resolvedURL else { throw RequestBuilder.invalidURL(request) }
            if let failure = SessionDelegate.uncheckablePins(pinning, for: url) {
                throw .transport(failure.transportFailure(url: url))
            }
            var urlRequest = URLRequest(url: url)
            for field in request.head.headerFields {
                urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
            }
            urlRequest.timeoutInterval = max(1, request.timeout.boundedTimeInterval.rounded(.up))
            let task = session.webSocketTask(with: urlRequest)
            task.maximumMessageSize = max(1, upgrade.options.maximumMessageSize)
            let connection = URLSessionWebSocketConnection(task: task, url: url, options: upgrade.options)
            let opened = await withTaskCancellationHandler {
                await connection.open()
            } onCancel: {
                task.cancel()
            }
            if Task.isCancelled { throw .cancelled }
            guard let response = task.response as? HTTPURLResponse, let parsed = response.httpResponse else {
                throw connection.failure(opened ?? URLError(.badServerResponse))
            }
            let head = ResponseHead(status: parsed.status, headers: parsed.headerFields, url: response.url ?? url)
            if parsed.status.code == 101, opened == nil {
                upgrade.deliver(connection)
            } else {
                task.cancel()
            }
            return StreamedResponse(head: head, body: ResponseBody())
        #endif
    }
}

/// A WebSocket over a `URLSessionWebSocketTask`: the task reads one message per `receive()` (so
/// a slow reader slows the socket), answers pings itself, and closes with a code.
final class URLSessionWebSocketConnection: WebSocketConnection {
    private let task: URLSessionWebSocketTask
    private let url: URL
    private let options: WebSocketSettings
    /// Set once the socket ended: by a close, a failure, or the idle timeout.
    private let end = LockedState<Result<Void, CourierError>?>(nil)
    private let pinger = LockedState<Task<Void, Never>?>(nil)

    init(task: URLSessionWebSocketTask, url: URL, options: WebSocketSettings) {
        self.task = task
        self.url = url
        self.options = options
    }

    /// Starts the task and waits for the handshake: the first pong, or the task's failure.
    func open() async -> (any Error)? {
        task.resume()
        let task = task
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            task.sendPing { error in continuation.resume(returning: error) }
        }
        if failure == nil, let interval = options.pingInterval, interval > .zero { startPinging(every: interval) }
        return failure
    }

    func send(_ message: WebSocketMessage) async throws(CourierError) {
        if let end = end.withLock({ $0 }) { throw CourierError.sendFailure(after: end) }
        let task = task
        do {
            try await withTaskCancellationHandler {
                switch message {
                case .text(let text): try await task.send(.string(text))
                case .data(let data): try await task.send(.data(data))
                }
            } onCancel: {
                abandon(code: 1001)
            }
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw failure(error)
        }
    }

    func receive() async throws(CourierError) -> WebSocketMessage? {
        if let end = end.withLock({ $0 }) { return try end.map { nil }.get() }
        do {
            switch try await task.receive() {
            case .string(let text): return text.utf8.count <= options.maximumMessageSize ? .text(text) : try tooLarge()
            case .data(let data): return data.count <= options.maximumMessageSize ? .data(data) : try tooLarge()
            @unknown default: return nil
            }
        } catch let error as CourierError {
            throw error
        } catch {
            let ended = closed() ?? .failure(failure(error))
            finish(ended)
            return try ended.map { nil }.get()
        }
    }

    func ping() async throws(CourierError) {
        if let end = end.withLock({ $0 }) { throw CourierError.sendFailure(after: end) }
        let task = task
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            task.sendPing { error in continuation.resume(returning: error) }
        }
        if let failure { throw self.failure(failure) }
    }

    func close(code: UInt16, reason: String) async {
        abandon(code: code, reason: reason)
    }

    func abandon(code: UInt16) {
        abandon(code: code, reason: "")
    }

    private func abandon(code: UInt16, reason: String) {
        finish(.success(()))
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
        task.cancel(with: closeCode, reason: Data(WebSocketClose.wireReason(reason).utf8))
    }

    /// The peer's close, once the task has one.
    private func closed() -> Result<Void, CourierError>? {
        guard task.closeCode != .invalid else { return nil }
        let close = WebSocketClose(code: UInt16(clamping: task.closeCode.rawValue), reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        return CourierError.ended(by: close).map { .failure($0) } ?? .success(())
    }

    private func tooLarge() throws(CourierError) -> WebSocketMessage? {
        let failure = CourierError.transport(
            TransportFailure(
                synthesizing: .responseTooLarge, url: url, message: "a WebSocket message exceeded the limit of \(options.maximumMessageSize) bytes"))
        finish(.failure(failure))
        task.cancel(with: .messageTooBig, reason: nil)
        throw failure
    }

    private func finish(_ result: Result<Void, CourierError>) {
        end.withLock { $0 = $0 ?? result }
        pinger.withLock { $0 }?.cancel()
    }

    /// A ping every `interval`; one unanswered by the next ends the socket with `timedOut`.
    private func startPinging(every interval: Duration) {
        let task = task, url = url
        let pinging = Task { [weak self] in
            let answered = LockedState(true)
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                guard answered.withLock({ $0 }) else {
                    self?.finish(
                        .failure(.transport(TransportFailure(synthesizing: .timedOut, url: url, message: "the WebSocket peer did not answer a ping in time"))))
                    task.cancel(with: .goingAway, reason: nil)
                    return
                }
                answered.withLock { $0 = false }
                task.sendPing { error in if error == nil { answered.withLock { $0 = true } } }
            }
        }
        pinger.withLock { $0 = pinging }
    }

    /// What a URLSession error means here: the close, if the task has one, else a transport failure.
    func failure(_ error: any Error) -> CourierError {
        if case .failure(let failure)? = closed() { return failure }
        if let urlError = error as? URLError {
            return urlError.code == .cancelled && Task.isCancelled ? .cancelled : .transport(TransportFailure(urlError, url: url))
        }
        return .transport(TransportFailure(synthesizing: .other, url: url, message: "\(error)", underlyingError: error))
    }
}
