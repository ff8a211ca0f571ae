public import Foundation

/// A response body as it arrives: an `AsyncSequence` of byte chunks.
///
/// Transports hand one over with the response head (``StreamedResponse``); stages of the
/// pipeline can read it, wrap it or replace it; ``Call/resume()`` and
/// ``Call/resume(expecting:)`` collect it up to ``Configuration/maximumResponseSize``.
///
/// A body is either **whole** (its bytes are all in memory: a small response, a stub, a body a
/// middleware made) or **streamed** (its bytes are still arriving). A whole body can be read any
/// number of times. A streamed body has one reader: a second iterator fails with a
/// ``TransportFailure`` saying so, instead of silently yielding nothing. Dropping a streamed body
/// unread, or calling ``cancel()``, stops the transfer on the wire.
///
/// ```swift
/// for try await chunk in response.body {
///     try file.write(contentsOf: chunk)
/// }
/// let data = try await response.body.collect(upTo: 1 << 20)   // or: everything, up to 1 MiB
/// ```
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of bytes, in the order they arrived.
    public typealias Element = Data
    /// Reading a body fails only with ``CourierError``.
    public typealias Failure = CourierError

    enum Storage: Sendable {
        case whole(Data)
        case streamed(any ResponseChunkSource)
    }

    let storage: Storage

    /// The number of bytes the body will have, when known before reading it: the count of a
    /// whole body, or the length a streamed body was announced with (`Content-Length` without
    /// `Content-Encoding`).
    public let expectedLength: Int?

    /// An empty body.
    public init() {
        self.init(Data())
    }

    /// A whole body: `data`, already in memory.
    public init(_ data: Data) {
        storage = .whole(data)
        expectedLength = data.count
    }

    /// A streamed body that reads `chunks`, for custom transports and for stages that wrap a body.
    ///
    /// An error `chunks` throws ends the body: a ``CourierError`` as it is, any other error as a
    /// ``TransportFailure/Kind/connectionLost`` failure carrying its description. Cancelling the
    /// body (or dropping it unread) stops iterating `chunks`.
    ///
    /// ```swift
    /// // A stage that counts what the caller reads:
    /// var response = try await next(request)
    /// response.body = ResponseBody(CountingChunks(base: response.body, counter: counter),
    ///                              expectedLength: response.body.expectedLength)
    /// ```
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, expectedLength: Int? = nil) where Chunks.Element == Data {
        if let body = chunks as? ResponseBody, body.expectedLength == expectedLength {
            self = body
            return
        }
        storage = .streamed(SequenceChunkSource(chunks))
        self.expectedLength = expectedLength
    }

    init(source: any ResponseChunkSource, expectedLength: Int?) {
        storage = .streamed(source)
        self.expectedLength = expectedLength
    }

    /// The bytes, when the body is whole; `nil` for a streamed body, which must be read.
    public var wholeData: Data? {
        if case .whole(let data) = storage { return data }
        return nil
    }

    /// Reads the whole body into memory.
    ///
    /// A body announced longer than `limit` fails before a byte is read; one that grows past it
    /// fails as soon as it does, and the transfer is stopped (a hostile server cannot make the
    /// caller buffer more than `limit` bytes).
    /// - Parameter limit: the most bytes to accept, or `nil` for no limit.
    /// - Throws: ``CourierError/transport(_:)`` with a ``TransportFailure/Kind/responseTooLarge``
    ///   failure past `limit`; whatever reading the body throws (a connection lost, a timeout,
    ///   ``CourierError/cancelled`` when the calling task is cancelled).
    public func collect(upTo limit: Int?) async throws(CourierError) -> Data {
        try await collect(upTo: limit, url: nil)
    }

    /// ``collect(upTo:)``, reporting `url` in the too-large failure (asked for only then).
    func collect(upTo limit: Int?, url: @autoclosure () -> URL?) async throws(CourierError) -> Data {
        let source: any ResponseChunkSource
        switch storage {
        case .whole:
            return try wholeData(upTo: limit, url: url())!
        case .streamed(let streamed):
            source = streamed
        }
        guard source.claim() else { throw Self.alreadyRead(url: url()) }
        if let limit, let expectedLength, expectedLength > limit {
            source.cancel()
            throw .transport(.responseTooLarge(limit: limit, url: url()))
        }
        var data = Data()
        if let expectedLength, expectedLength > 0 {
            // Never trust an announced length for more than 64 MiB of memory up front.
            data.reserveCapacity(Swift.min(expectedLength, limit ?? .max, 64 << 20))
        }
        while let chunk = try await source.next() {
            if let limit, chunk.count > limit - data.count {
                source.cancel()
                throw .transport(.responseTooLarge(limit: limit, url: url()))
            }
            if data.isEmpty {
                // The first chunk may be the whole body: keep it rather than copy it.
                data = chunk
            } else {
                data.append(chunk)
            }
        }
        return data
    }

    /// The bytes of a whole body, checked against `limit` without reading anything; `nil` for a
    /// streamed body, which ``collect(upTo:url:)`` reads under the same limit.
    /// - Throws: ``TransportFailure/Kind/responseTooLarge`` for a whole body past `limit`.
    func wholeData(upTo limit: Int?, url: @autoclosure () -> URL?) throws(CourierError) -> Data? {
        guard case .whole(let data) = storage else { return nil }
        if let limit, data.count > limit { throw .transport(.responseTooLarge(limit: limit, url: url())) }
        return data
    }

    /// Stops a streamed body's transfer and drops what is buffered; its reader, if any, gets
    /// ``CourierError/cancelled``. Nothing happens to a whole body. Call it when a response is
    /// not wanted (a retry, a replay); dropping the body unread does the same.
    public func cancel() {
        if case .streamed(let source) = storage { source.cancel() }
    }

    /// The failure a second reader of a streamed body gets.
    static func alreadyRead(url: URL?) -> CourierError {
        .transport(
            TransportFailure(
                kind: .other, url: url,
                message: "the response body was already read: a streamed body has one reader (collect it once and share the Data)"))
    }

    /// Starts reading the body. A streamed body can be read by one iterator only.
    public func makeAsyncIterator() -> Iterator {
        switch storage {
        case .whole(let data):
            return Iterator(state: data.isEmpty ? .done : .whole(data))
        case .streamed(let source):
            return Iterator(state: source.claim() ? .streamed(source) : .failed(Self.alreadyRead(url: nil)))
        }
    }

    /// Reads a body's chunks in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Reading a body fails only with ``CourierError``.
        public typealias Failure = CourierError

        enum State: Sendable {
            case whole(Data)
            case streamed(any ResponseChunkSource)
            case failed(CourierError)
            case done
        }

        var state: State

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: what ended the transfer (a connection lost, a timeout, a response past the
        ///   transport's limit), or ``CourierError/cancelled`` when the calling task is cancelled.
        public mutating func next() async throws(CourierError) -> Data? {
            switch state {
            case .whole(let data):
                state = .done
                return data
            case .streamed(let source):
                do {
                    guard let chunk = try await source.next() else {
                        state = .done
                        return nil
                    }
                    return chunk
                } catch {
                    state = .done
                    throw error
                }
            case .failed(let error):
                state = .done
                throw error
            case .done:
                return nil
            }
        }

        /// ``next()``; the isolation does not matter, as chunks are `Sendable`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Data? {
            try await next()
        }
    }
}

/// Where a streamed body's chunks come from. One reader: it ``claim()``s the source first.
///
/// A source that is dropped before its end must stop its transfer (`deinit`), so that a body
/// nobody reads does not keep a connection busy.
protocol ResponseChunkSource: AnyObject, Sendable {
    /// `true` for the first caller only: the one reader.
    func claim() -> Bool
    /// The next chunk, `nil` at the end; throws what ended the transfer.
    func next() async throws(CourierError) -> Data?
    /// Stops the transfer; a waiting or later `next()` throws ``CourierError/cancelled``.
    func cancel()
}

/// A source over any `AsyncSequence` of `Data`, for custom transports and wrapping stages.
///
/// `@unchecked Sendable`: `iterator` is only touched by the one reader that claimed the source,
/// one `next()` at a time (an `AsyncIteratorProtocol` user never overlaps calls); `claimed` and
/// `cancelled` are behind `state`'s lock.
final class SequenceChunkSource<Chunks: AsyncSequence & Sendable>: ResponseChunkSource, @unchecked Sendable where Chunks.Element == Data {
    private var iterator: Chunks.AsyncIterator
    private let state = LockedState((claimed: false, cancelled: false))

    init(_ chunks: Chunks) {
        iterator = chunks.makeAsyncIterator()
    }

    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func next() async throws(CourierError) -> Data? {
        if Task.isCancelled || state.withLock({ $0.cancelled }) { throw .cancelled }
        do {
            // `next(isolation:)`, an AsyncIteratorProtocol requirement from macOS 15 and iOS 18 on,
            // defaults to `next()` for iterators written before it.
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                return try await iterator.next(isolation: nil)
            }
            return try await iterator.next()
        } catch let error as CourierError {
            throw error
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw .transport(TransportFailure(kind: .connectionLost, message: String(describing: error), underlyingError: error))
        }
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
    }
}
