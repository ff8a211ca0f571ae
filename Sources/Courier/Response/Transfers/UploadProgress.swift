import Foundation

extension TransportBody {
    /// This body as a stream whose chunks are counted into `meter` as the transport reads them:
    /// the first value when the transport opens it, throttled values as it reads, the last when
    /// it has read everything. Bytes in memory are handed over in 64 KiB slices, so that their
    /// progress moves too. Length and replayability are the body's own.
    func counted(by meter: ProgressMeter) -> BodyStream {
        let base: BodyStream
        switch self {
        case .data(let data):
            base = BodyStream(length: Int64(data.count), isReplayable: true) { () throws(CourierError) -> any ChunkSource in
                DataSlices(data: data)
            }
        case .stream(let stream):
            base = stream
        }
        let expected = base.length
        return BodyStream(length: expected, isReplayable: base.isReplayable) { () throws(CourierError) -> any ChunkSource in
            CountingSource(reader: try base.makeReader(), counter: ChunkCounter(ticker: ProgressTicker(meter), expected: expected))
        }
    }
}

/// Bytes in memory, in slices of at most ``bodyChunkSize``.
private struct DataSlices: ChunkSource {
    let data: Data
    var offset = 0

    mutating func next() async throws(CourierError) -> Data? {
        guard offset < data.count else { return nil }
        let end = Swift.min(offset + bodyChunkSize, data.count)
        defer { offset = end }
        return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
    }
}

/// A body reader whose chunks are counted as they are read. Each send opens a new one and
/// counts from zero; the meter keeps the reported values from going backwards.
private struct CountingSource: ChunkSource {
    var reader: BodyStream.Reader
    var counter: ChunkCounter

    mutating func next() async throws(CourierError) -> Data? {
        counter.start()
        return counter.counted(try await reader.next())
    }
}
