public import Foundation

/// A request body that is read chunk by chunk while it is sent, never held whole in memory:
/// a file on disk, a multipart form with file parts, or an `AsyncSequence` of bytes.
///
/// Build one through ``RequestBody`` (`.file(_:contentType:)`, `.multipart(_:)`,
/// `.stream(_:length:contentType:)`); a custom ``Transport`` reads it with ``makeReader()``.
///
/// When ``length`` is known it is sent as `Content-Length`; otherwise the body goes out with
/// chunked transfer encoding. A source that delivers a different number of bytes than it
/// announced (a file that changed size while it was sent) fails the call with
/// ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` instead of sending a body the server would misread.
public struct BodyStream: Sendable {
    /// The exact number of bytes, when known before sending; `nil` for a stream of unknown size.
    public let length: Int64?
    /// Whether the body can be read again from the start, for a replay after a 401 or a retry.
    /// Files and multipart forms can; an `AsyncSequence` is single-use.
    let isReplayable: Bool
    /// Tells streams apart for `Equatable`: each body made by a factory is its own stream.
    let identity: UUID
    private let open: @Sendable () throws(CourierError) -> any ChunkSource

    /// Creates a stream from a source that is opened once per send.
    init(length: Int64?, isReplayable: Bool, open: @escaping @Sendable () throws(CourierError) -> any ChunkSource) {
        self.length = length
        self.isReplayable = isReplayable
        self.identity = UUID()
        self.open = open
    }

    /// Starts reading the body from its beginning.
    /// - Throws: ``InvalidRequest/bodyNotReplayable`` when a single-use stream was already read;
    ///   ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` when the source cannot be opened (a missing file).
    public func makeReader() throws(CourierError) -> Reader {
        Reader(source: try open(), expectedLength: length)
    }

    /// Reads one ``BodyStream`` in order. Not `Sendable`: read it from one task.
    public struct Reader {
        private var source: any ChunkSource
        private let expectedLength: Int64?
        private var delivered: Int64 = 0
        private var finished = false

        init(source: any ChunkSource, expectedLength: Int64?) {
            self.source = source
            self.expectedLength = expectedLength
        }

        /// The next chunk, never empty, or `nil` at the end of the body.
        /// - Throws: ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` when the source fails or delivers
        ///   more or fewer bytes than ``BodyStream/length``; ``CourierError/cancelled`` when the
        ///   reading task is cancelled.
        public mutating func next() async throws(CourierError) -> Data? {
            guard !finished else { return nil }
            while true {
                // The source is asked first and cancellation checked after: a source asked in a
                // cancelled task learns that it was cancelled (an `AsyncStream` calls its
                // `onTermination`), while one never asked again only learns it once dropped.
                let next = try await source.next()
                if Task.isCancelled {
                    // Cancelled after the source answered: it has not learnt it yet, so it is
                    // asked once more, in the cancelled task.
                    if next != nil { _ = try? await source.next() }
                    throw .cancelled
                }
                guard let chunk = next else {
                    finished = true
                    if let expectedLength, delivered != expectedLength {
                        throw .invalidRequest(
                            .bodySourceFailed(
                                "the body ended after \(delivered) of the \(expectedLength) bytes it announced"))
                    }
                    return nil
                }
                if chunk.isEmpty { continue }
                delivered += Int64(chunk.count)
                if let expectedLength, delivered > expectedLength {
                    finished = true
                    throw .invalidRequest(
                        .bodySourceFailed(
                            "the body delivered more than the \(expectedLength) bytes it announced"))
                }
                return chunk
            }
        }
    }
}

extension BodyStream: Equatable {
    /// Two streams are equal when they are the same stream (not when their bytes are).
    public static func == (lhs: BodyStream, rhs: BodyStream) -> Bool {
        lhs.identity == rhs.identity
    }
}

/// Where a ``BodyStream``'s bytes come from: one instance per send, read from one task.
protocol ChunkSource {
    /// The next chunk (possibly empty), or `nil` at the end.
    mutating func next() async throws(CourierError) -> Data?
}

/// The size of the chunks Courier reads from files and batches byte sequences into.
let bodyChunkSize = 64 * 1024

extension BodyStream {
    /// A body from an `AsyncSequence` of chunks (`Data`, `[UInt8]`, …), read once.
    ///
    /// - Parameters:
    ///   - sequence: the chunks, in order. An error it throws fails the call with
    ///     ``InvalidRequest/bodySourceFailed(_:underlyingError:)``.
    ///   - length: the exact total, when known (sent as `Content-Length`); `nil` sends the body
    ///     chunked.
    public init<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, length: Int64? = nil) where Chunks.Element: DataProtocol {
        self.init(sequence, length: length, replayable: false)
    }

    /// A body from an `AsyncSequence` of chunks that is read once, or, when `replayable`, anew
    /// for each attempt (a retry, a 401 replay): only for a sequence that can be iterated again
    /// from its start.
    package init<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, length: Int64?, replayable: Bool) where Chunks.Element: DataProtocol {
        let gate: SingleUseGate? = replayable ? nil : SingleUseGate()
        self.init(length: length, isReplayable: replayable) { () throws(CourierError) -> any ChunkSource in
            try gate?.pass()
            return SequenceSource(iterator: sequence.makeAsyncIterator()) { Data($0) }
        }
    }

    /// A body from an `AsyncSequence` of single bytes, read once and sent in 64 KiB chunks.
    ///
    /// - Parameters:
    ///   - bytes: the bytes, in order. An error it throws fails the call with
    ///     ``InvalidRequest/bodySourceFailed(_:underlyingError:)``.
    ///   - length: the exact total, when known (sent as `Content-Length`).
    public init<Bytes: AsyncSequence & Sendable>(bytes: Bytes, length: Int64? = nil) where Bytes.Element == UInt8 {
        let gate = SingleUseGate()
        self.init(length: length, isReplayable: false) { () throws(CourierError) -> any ChunkSource in
            try gate.pass()
            return ByteBatchingSource(iterator: bytes.makeAsyncIterator())
        }
    }

    /// A file on disk, read in 64 KiB chunks while it is sent; its size, taken now, is the
    /// `Content-Length`.
    /// - Throws: ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` when the file does not exist or is not a
    ///   regular, readable file.
    public init(file url: URL) throws(CourierError) {
        let size = try FileChunkSource.size(of: url)
        self.init(length: size, isReplayable: true) { () throws(CourierError) -> any ChunkSource in
            FileChunkSource(url: url, expectedSize: size)
        }
    }
}

/// Chunks from any `AsyncSequence`, converted to `Data`.
private struct SequenceSource<Iterator: AsyncIteratorProtocol>: ChunkSource {
    var iterator: Iterator
    let convert: (Iterator.Element) -> Data

    mutating func next() async throws(CourierError) -> Data? {
        do {
            return try await iterator.next().map(convert)
        } catch let error as CourierError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .invalidRequest(.bodySourceFailed("the body's sequence threw \(String(describing: error))", underlyingError: error))
        }
    }
}

/// Single bytes batched into chunks of ``bodyChunkSize``.
private struct ByteBatchingSource<Iterator: AsyncIteratorProtocol>: ChunkSource where Iterator.Element == UInt8 {
    var iterator: Iterator
    var ended = false

    mutating func next() async throws(CourierError) -> Data? {
        guard !ended else { return nil }
        var chunk = Data(capacity: bodyChunkSize)
        do {
            while chunk.count < bodyChunkSize {
                guard let byte = try await iterator.next() else {
                    ended = true
                    break
                }
                chunk.append(byte)
            }
        } catch let error as CourierError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .invalidRequest(.bodySourceFailed("the body's sequence threw \(String(describing: error))", underlyingError: error))
        }
        return chunk.isEmpty && ended ? nil : chunk
    }
}

/// Lets a single-use source be opened once; the second open fails with
/// ``InvalidRequest/bodyNotReplayable``.
///
/// `@unchecked Sendable`: `used` is only read and written under `lock`.
private final class SingleUseGate: @unchecked Sendable {
    private let lock = NSLock()
    private var used = false

    func pass() throws(CourierError) {
        lock.lock()
        defer { lock.unlock() }
        guard !used else { throw .invalidRequest(.bodyNotReplayable) }
        used = true
    }
}
