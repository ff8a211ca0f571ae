import Foundation

/// Streams a multipart body, one send: in-memory segments, then files and streams read chunk by
/// chunk, each scanned for the delimiter as it passes.
///
/// Chunks are at most ``bodyChunkSize`` bytes. Small neighbours (a part's head, text fields, the
/// CRLF after a file and the next head) are coalesced into one chunk; a full 64 KiB file chunk
/// is passed on as it was read, without copying.
struct MultipartSource: ChunkSource {
    /// A file or stream part being read.
    private struct Streamed {
        var source: any ChunkSource
        var scanner: DelimiterScanner
        let label: String
    }

    private let segments: [MultipartSegment]
    private let search: DelimiterSearch
    /// The readers of stream parts, opened with the source (so that a spent single-use stream
    /// fails the send before any byte goes out), by segment index.
    private var streamReaders: [Int: BodyStream.Reader] = [:]
    private var index = 0
    /// The in-memory bytes being handed out, and how many of them are already.
    private var current: Data?
    private var offset = 0
    private var streamed: Streamed?
    /// The chunk being assembled.
    private var pending = Data()
    private var failure: CourierError?

    /// - Throws: ``InvalidRequest/bodyNotReplayable`` when a stream part was already read.
    init(segments: [MultipartSegment], delimiter: [UInt8]) throws(CourierError) {
        self.segments = segments
        self.search = DelimiterSearch(delimiter)
        for (index, segment) in segments.enumerated() {
            if case .stream(let stream, _) = segment {
                streamReaders[index] = try stream.makeReader()
            }
        }
    }

    mutating func next() async throws(CourierError) -> Data? {
        if let failure { throw failure }
        do {
            return try await assembleNext()
        } catch {
            failure = error  // a failed body stays failed
            throw error
        }
    }

    private mutating func assembleNext() async throws(CourierError) -> Data? {
        while true {
            if pending.count >= bodyChunkSize {
                return takePending()
            }
            if let bytes = current {
                let remaining = bytes.count - offset
                if pending.isEmpty && offset == 0 && remaining <= bodyChunkSize {
                    pending = bytes  // shares the storage: no copy
                    current = nil
                    continue
                }
                let count = min(remaining, bodyChunkSize - pending.count)
                let start = bytes.startIndex + offset
                pending.append(bytes[start..<start + count])
                offset += count
                if offset == bytes.count {
                    current = nil
                    offset = 0
                }
                continue
            }
            if streamed != nil {
                guard let chunk = try await nextStreamedChunk() else { continue }
                // A chunk that does not fit after the pending bytes starts the next chunk.
                if !pending.isEmpty && pending.count + chunk.count > bodyChunkSize {
                    current = chunk
                    offset = 0
                    return takePending()
                }
                current = chunk
                offset = 0
                continue
            }
            guard index < segments.count else {
                return pending.isEmpty ? nil : takePending()
            }
            let segment = segments[index]
            index += 1
            switch segment {
            case .bytes(let bytes):
                current = bytes
                offset = 0
            case .file(let url, let size, let label):
                streamed = Streamed(
                    source: FileChunkSource(url: url, expectedSize: size),
                    scanner: DelimiterScanner(search: search, after: MultipartForm.crlf), label: label)
            case .stream(_, let label):
                guard let reader = streamReaders.removeValue(forKey: index - 1) else { continue }
                streamed = Streamed(
                    source: StreamPartSource(reader: reader),
                    scanner: DelimiterScanner(search: search, after: MultipartForm.crlf), label: label)
            }
        }
    }

    /// The streamed part's next non-empty chunk, scanned; `nil` (and the part is done) at its end.
    private mutating func nextStreamedChunk() async throws(CourierError) -> Data? {
        guard var part = streamed else { return nil }
        streamed = nil  // keeps `part.source` uniquely referenced while it is read
        let chunk: Data?
        do {
            chunk = try await part.source.next()
        } catch {
            if case .invalidRequest(.bodySourceFailed(let reason, let underlyingError)) = error {
                throw .invalidRequest(.bodySourceFailed("\(part.label): \(reason)", underlyingError: underlyingError))
            }
            throw error
        }
        guard let chunk else { return nil }
        if part.scanner.scan(chunk) {
            throw .invalidRequest(
                .bodySourceFailed(
                    "the boundary occurs in \(part.label); send it with a fixed boundary it does not contain, or as another body"))
        }
        streamed = part
        return chunk
    }

    private mutating func takePending() -> Data {
        if pending.count <= bodyChunkSize {
            defer { pending = Data() }
            return pending
        }
        let chunk = pending.prefix(bodyChunkSize)
        pending = Data(pending.dropFirst(bodyChunkSize))
        return Data(chunk)
    }
}

/// A stream part's ``BodyStream/Reader`` as a ``ChunkSource``; the reader checks its length.
private struct StreamPartSource: ChunkSource {
    var reader: BodyStream.Reader

    mutating func next() async throws(CourierError) -> Data? {
        try await reader.next()
    }
}
