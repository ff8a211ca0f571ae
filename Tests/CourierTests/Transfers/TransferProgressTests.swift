import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Transfer progress: values, throttling, monotonicity, and the early first value")
struct TransferProgressTests {
    @Test("fraction is completed over expected, 1 for an empty body, nil when the size is unknown")
    func fractionFollowsTheCounts() {
        #expect(TransferProgress(direction: .download, completedBytes: 25, expectedBytes: 100).fraction == 0.25)
        #expect(TransferProgress(direction: .upload, completedBytes: 0, expectedBytes: 0).fraction == 1)
        #expect(TransferProgress(direction: .upload, completedBytes: 10).fraction == nil)
        #expect(TransferProgress(direction: .download, completedBytes: 25, expectedBytes: 100).description == "download 25/100 bytes (25%)")
    }

    @Test("a meter reports only values past the last one, and nothing after it ended")
    func theMeterIsMonotonicAndEndsOnce() async {
        let (updates, meter) = ProgressMeter.makeUpdates(.upload)
        meter.update(0, of: 10, force: true)
        meter.update(5, of: 10, force: true)
        meter.update(3, of: 10, force: true)  // a replayed body counting again: dropped
        meter.update(5, of: 10, force: true)
        meter.update(10, of: 10, force: true)
        meter.end()
        meter.update(11, of: 10, force: true)
        meter.end()
        var values: [Int64] = []
        for await progress in updates { values.append(progress.completedBytes) }
        #expect(values == [0, 5, 10])
    }

    @Test("a meter reports the first value, then at most one per interval however many chunks arrive, and the last")
    func theTickerThrottles() async {
        let (updates, meter) = ProgressMeter.makeUpdates(.download)
        let ticker = ProgressTicker(meter)
        ticker.force(0, of: 100_000)
        for count in 1...10_000 { ticker.advance(to: Int64(count), of: 100_000) }
        ticker.force(100_000, of: 100_000)
        meter.end()
        var values: [Int64] = []
        for await progress in updates { values.append(progress.completedBytes) }
        #expect(values.first == 0)
        #expect(values.last == 100_000)
        // 10,000 chunks in far less than a second: a handful of values, not thousands.
        #expect(values.count < 50, "\(values.count) values")
    }

    @Test("upload progress of a data body through a call starts at 0 and ends at its size, read after the call returned")
    func uploadProgressOfAStubbedCall() async throws {
        let transport = DrainingTransport()
        let client = Client(configuration: Configuration(transport: transport))
        var endpoint = TestEndpoint()
        endpoint.method = .post
        endpoint.body = .data(Data(repeating: 1, count: 1 << 20))
        let call = client.enqueue(endpoint).withProgress()
        _ = try await call.resume()
        var values: [TransferProgress] = []
        for await progress in call.uploadProgress { values.append(progress) }
        #expect(values.first?.completedBytes == 0)
        #expect(values.last == TransferProgress(direction: .upload, completedBytes: 1 << 20, expectedBytes: 1 << 20))
        #expect(transport.received.withLock { $0 } == 1 << 20)
    }

    @Test("a call resumed without progress sends its data body as data: no wrapper, no meter")
    func noObserverNoWrapper() async throws {
        let transport = DrainingTransport()
        let client = Client(configuration: Configuration(transport: transport))
        var endpoint = TestEndpoint()
        endpoint.method = .post
        endpoint.body = .data(Data(repeating: 1, count: 10))
        _ = try await client.enqueue(endpoint).resume()
        #expect(transport.kinds.withLock { $0 } == ["data"])
    }
}

/// A transport that reads the whole request body and answers 200 with an empty body.
final class DrainingTransport: Transport {
    let received = LockedState(0)
    let kinds = LockedState<[String]>([])

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        switch request.body {
        case .data(let data)?:
            kinds.withLock { $0.append("data") }
            received.withLock { $0 += data.count }
        case .stream(let stream)?:
            kinds.withLock { $0.append("stream") }
            var reader = try stream.makeReader()
            while let chunk = try await reader.next() { received.withLock { $0 += chunk.count } }
        case nil:
            break
        }
        return StreamedResponse(statusCode: 200, url: request.url)
    }
}
