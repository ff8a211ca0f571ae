import CourierTesting
import Foundation
import HTTPTypes
import PropertyBased
import Testing

@testable import Courier

/// Hostile review of `Call.withProgress()`: every sequence of a progress call ends after the
/// first terminal operation (success, failure, cancellation), values never go backwards, and a
/// call without `withProgress()` has sequences that end at once.
@Suite("Hostile review (shape II): the progress promise", .timeLimit(.minutes(3)))
struct ProgressPromiseTests {
    static let uploadSize = 300_000
    static let downloadSize = 200_000

    struct Model: Decodable, Sendable { var id: Int }

    /// The terminal operations a caller can start on a progress call.
    enum Operation: Int, CaseIterable, Sendable {
        case resumeOK, resumeRefused, resumeTransportFailure, resumeDecodingFailure, resumeExpectingOK
        case streamThenReadBody, streamRefused, events, makeDownload, downloadOK, resumeCancelledMidUpload, concurrentResumes

        /// What the transport answers to the requests of this operation.
        var reply: Shape2ScriptedTransport.Reply {
            switch self {
            case .resumeOK, .streamThenReadBody, .downloadOK, .concurrentResumes, .events, .makeDownload: .ok
            case .resumeExpectingOK: .json
            case .resumeRefused, .streamRefused: .status(500)
            case .resumeTransportFailure: .fail
            case .resumeDecodingFailure: .ok
            case .resumeCancelledMidUpload: .hang
            }
        }

        /// Whether the operation succeeds, so the last upload value counts the whole body.
        var succeeds: Bool {
            switch self {
            case .resumeOK, .resumeExpectingOK, .streamThenReadBody, .downloadOK, .concurrentResumes: true
            default: false
            }
        }
    }

    // MARK: - The promise as a property

    @Test("after any first terminal operation (and any later ones), both sequences end and never go backwards")
    func everySequenceEndsAfterTheFirstTerminalOperation() async {
        await propertyCheck(count: 80, input: Gen.int(in: 0...(Operation.allCases.count - 1)).array(of: 1...3)) { codes in
            let operations = codes.compactMap(Operation.init(rawValue:))
            try await Self.check(operations)
        }
    }

    @Test("every terminal operation alone keeps the promise", arguments: Operation.allCases)
    func eachOperationKeepsThePromise(_ operation: Operation) async throws {
        try await Self.check([operation])
    }

    /// Runs `operations` in turn on one progress call, a reader started before the first, and
    /// checks the promise.
    static func check(_ operations: [Operation]) async throws {
        let first = try #require(operations.first)
        let transport = Shape2ScriptedTransport { _ in first.reply }
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        var endpoint = TestEndpoint()
        endpoint.method = .post
        endpoint.body = .data(Data(repeating: 7, count: uploadSize))
        let call = client.enqueue(endpoint).withProgress()
        // A reader started before the request: it must end, whatever happens.
        let earlyReader = Task { await shape2Collect(call.uploadProgress) }
        for operation in operations {
            await run(operation, on: call, transport: transport)
        }
        let upload = await earlyReader.value
        // A reader that starts after the call ended sees the values kept, then the end.
        let lateDownload = await shape2Collect(call.downloadProgress)
        let uploadValues = try #require(upload, "the upload sequence of \(operations) did not end")
        let downloadValues = try #require(lateDownload, "the download sequence of \(operations) did not end")
        for values in [uploadValues, downloadValues] {
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes }, "\(operations): \(values)")
        }
        if first.succeeds {
            #expect(uploadValues.first?.completedBytes == 0, "\(operations)")
            #expect(uploadValues.last?.completedBytes == Int64(uploadSize), "\(operations): \(uploadValues)")
        }
        if first == .resumeOK || first == .downloadOK || first == .resumeExpectingOK {
            #expect(downloadValues.last?.completedBytes == Int64(first == .resumeExpectingOK ? Shape2ScriptedTransport.json.count : downloadSize))
        }
        // Ended for good: another reader ends too.
        #expect(await shape2Collect(call.uploadProgress) != nil)
    }

    static func run(_ operation: Operation, on call: Call, transport: Shape2ScriptedTransport) async {
        transport.override.withLock { $0 = operation.reply }
        switch operation {
        case .resumeOK, .resumeRefused, .resumeTransportFailure:
            _ = try? await call.resume()
        case .resumeDecodingFailure:
            _ = try? await call.resume(expecting: Model.self)
        case .resumeExpectingOK:
            _ = try? await call.resume(expecting: Model.self)
        case .streamThenReadBody, .streamRefused:
            if let response = try? await call.stream() {
                var count = 0
                do { for try await chunk in response.body { count += chunk.count } } catch {}
            }
        case .events:
            _ = call.events()
        case .makeDownload:
            _ = call.makeDownload(to: FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID()).bin"))
        case .downloadOK:
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID()).bin")
            _ = try? await call.download(to: destination)
            try? FileManager.default.removeItem(at: destination)
        case .resumeCancelledMidUpload:
            let before = transport.uploadsStarted.value
            let task = Task { try await call.resume() }
            // Cancel once the transport is reading the body (or the task already ended).
            await transport.uploadsStarted.wait { $0 > before }
            task.cancel()
            _ = await task.result
        case .concurrentResumes:
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try? await call.resume() } }
            }
        }
    }

    // MARK: - Specific attacks

    @Test("a thousand concurrent resumes of copies of one progress call all complete, and both sequences end monotonic")
    func aThousandConcurrentResumesOfOneProgressCall() async throws {
        let transport = Shape2ScriptedTransport { _ in .ok }
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        var endpoint = TestEndpoint()
        endpoint.method = .post
        endpoint.body = .data(Data(repeating: 1, count: 4096))
        let call = client.enqueue(endpoint).withProgress()
        let reader = Task { await shape2Collect(call.uploadProgress) }
        let succeeded = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                let copy = call
                group.addTask { (try? await copy.resume()) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(succeeded == 1000)
        #expect(transport.requests.withLock { $0 } == 1000)
        let upload = try #require(await reader.value, "the upload sequence did not end")
        let download = try #require(await shape2Collect(call.downloadProgress), "the download sequence did not end")
        for values in [upload, download] {
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
        }
    }

    @Test("two tasks reading the same sequence at once both end (values are split between them, never duplicated)")
    func twoReadersOfOneSequenceBothEnd() async throws {
        let transport = Shape2ScriptedTransport { _ in .ok }
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        var endpoint = TestEndpoint()
        endpoint.method = .post
        endpoint.body = .data(Data(repeating: 1, count: Self.uploadSize))
        let call = client.enqueue(endpoint).withProgress()
        let a = Task { await shape2Collect(call.uploadProgress) }
        let b = Task { await shape2Collect(call.uploadProgress) }
        _ = try await call.resume()
        let first = try #require(await a.value)
        let second = try #require(await b.value)
        let all = (first + second).map(\.completedBytes)
        #expect(Set(all).count == all.count)
    }

    /// `withProgress()` on a progress call used to make new sequences: a reader of the first
    /// ones then waited for ever, since the resume reported into, and ended, only the new ones.
    @Test("withProgress() twice keeps the sequences: a reader of the first ones sees the values and the end")
    func withProgressTwiceKeepsTheSequences() async throws {
        let transport = Shape2ScriptedTransport { _ in .ok }
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        var endpoint = TestEndpoint()
        endpoint.method = .post
        endpoint.body = .data(Data(repeating: 1, count: Self.uploadSize))
        let first = client.enqueue(endpoint).withProgress()
        let reader = Task { await shape2Collect(first.uploadProgress, within: .seconds(20)) }
        let again = first.withProgress()
        _ = try await again.resume()
        let values = try #require(await reader.value, "the first sequences never ended")
        #expect(values.last?.completedBytes == Int64(Self.uploadSize))
        // Once ended, withProgress() gives new sequences for the next resume.
        let next = again.withProgress()
        _ = try await next.resume()
        #expect(try #require(await shape2Collect(next.uploadProgress)).last?.completedBytes == Int64(Self.uploadSize))
    }

    @Test("a call without withProgress() has sequences that end at once, before and after it is resumed")
    func withoutProgressTheSequencesEndAtOnce() async throws {
        let transport = Shape2ScriptedTransport { _ in .ok }
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        let call = client.enqueue(TestEndpoint())
        #expect(await shape2Collect(call.uploadProgress) == [])
        #expect(await shape2Collect(call.downloadProgress) == [])
        _ = try await call.resume()
        #expect(await shape2Collect(call.downloadProgress) == [])
    }

    /// `resume()` reads the body whole inside the retry loop, and the download counter used to
    /// count that in-memory copy afterwards: a reader saw `0`, then nothing until every byte had
    /// arrived. Progress of a body must be reported while it arrives.
    @Test("resume() reports download progress while the body arrives, not only once it is whole")
    func resumeReportsDownloadProgressWhileTheBodyArrives() async throws {
        let (chunks, feed) = AsyncStream.makeStream(of: Data.self)
        let transport = Shape2GatedBodyTransport(chunks: chunks, length: 200)
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        let call = client.enqueue(TestEndpoint()).withProgress()
        let resumed = Task { try await call.resume() }
        feed.yield(Data(repeating: 1, count: 100))
        // Half the body has arrived and the rest is held back until a reader sees the half.
        let sawHalf = await shape2FirstValue(in: call.downloadProgress, within: .seconds(20)) { $0.completedBytes >= 100 }
        feed.yield(Data(repeating: 2, count: 100))
        feed.finish()
        let response = try await resumed.value
        #expect(response.body.count == 200)
        #expect(sawHalf, "no download progress until the whole body had arrived")
    }

    @Test("resume() with retries: the 503 body of a failed attempt does not leave the last value above the accepted body's size")
    func aRetriedAttemptDoesNotInflateTheLastValue() async throws {
        let transport = Shape2ScriptedTransport { index in index == 0 ? .statusWithBody(503, 150_000) : .ok }
        let client = Client(
            configuration: Configuration(
                transport: transport, retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: .zero, maxDelay: .zero)))
        let call = client.enqueue(TestEndpoint()).withProgress()
        let response = try await call.resume()
        #expect(response.body.count == Self.downloadSize)
        let values = try #require(await shape2Collect(call.downloadProgress))
        #expect(values.last?.completedBytes == Int64(Self.downloadSize), "\(values)")
    }
}

// MARK: - Helpers

/// Every value of `updates` until it ends, or `nil` when it has not ended `within` (a hang).
func shape2Collect(_ updates: TransferProgressUpdates, within limit: Duration = .seconds(30)) async -> [TransferProgress]? {
    await withTaskGroup(of: [TransferProgress]?.self) { group in
        group.addTask {
            var values: [TransferProgress] = []
            for await value in updates { values.append(value) }
            return Task.isCancelled ? nil : values
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Whether `updates` gives a value matching `condition` before it ends and `within` the limit.
func shape2FirstValue(
    in updates: TransferProgressUpdates, within limit: Duration, where condition: @escaping @Sendable (TransferProgress) -> Bool
) async -> Bool {
    await withTaskGroup(of: Bool?.self) { group in
        group.addTask {
            for await value in updates where condition(value) { return true }
            return false
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? false
    }
}

/// A counter that can be awaited until it meets a condition.
final class Shape2AwaitableCount: Sendable {
    private let state = LockedState<(value: Int, waiters: [(condition: @Sendable (Int) -> Bool, continuation: CheckedContinuation<Void, Never>)])>((0, []))

    var value: Int { state.withLock { $0.value } }

    func increment() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.value += 1
            let value = state.value
            let ready = state.waiters.filter { $0.condition(value) }.map(\.continuation)
            state.waiters.removeAll { $0.condition(value) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func wait(until condition: @escaping @Sendable (Int) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if condition(state.value) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A transport whose answer to the n-th request (from 0) the test chooses.
final class Shape2ScriptedTransport: Transport {
    enum Reply: Sendable {
        /// Reads the body, answers 200 with `ProgressPromiseTests.downloadSize` bytes in chunks.
        case ok
        /// Reads the body, answers 200 with a small JSON document.
        case json
        /// Reads the body, answers with this status and a small body.
        case status(Int)
        /// Reads the body, answers with this status and a body of this many bytes.
        case statusWithBody(Int, Int)
        /// Reads a part of the body, then fails as a refused connection.
        case fail
        /// Reads a part of the body, then waits until cancelled.
        case hang
    }

    static let json = Data(#"{"id": 42}"#.utf8)

    let reply: @Sendable (Int) -> Reply
    let requests = LockedState(0)
    /// When set, the answer to every request, whatever `reply` says.
    let override = LockedState<Reply?>(nil)
    /// Counts requests whose body reading started (`hang` only).
    let uploadsStarted = Shape2AwaitableCount()

    init(reply: @escaping @Sendable (Int) -> Reply) {
        self.reply = reply
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let index = requests.withLock { count in
            defer { count += 1 }
            return count
        }
        let reply = override.withLock { $0 } ?? reply(index)
        switch reply {
        case .fail, .hang:
            if case .stream(let stream)? = request.body {
                var reader = try stream.makeReader()
                _ = try await reader.next()
            }
            if case .hang = reply {
                uploadsStarted.increment()
                do { try await suspendUntilCancelled() } catch { throw .cancelled }
                throw .cancelled
            }
            throw .transport(TransportFailure(URLError(.cannotConnectToHost), url: request.url))
        default:
            if case .stream(let stream)? = request.body {
                var reader = try stream.makeReader()
                while try await reader.next() != nil {}
            }
        }
        switch reply {
        case .json:
            return StreamedResponse(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(Self.json), url: request.url)
        case .status(let code):
            return StreamedResponse(status: HTTPResponse.Status(code: code), body: ResponseBody(Data("no".utf8)), url: request.url)
        case .statusWithBody(let code, let size):
            return StreamedResponse(
                status: HTTPResponse.Status(code: code), headers: [.contentLength: "\(size)"],
                body: Self.chunked(size), url: request.url)
        default:
            let size = ProgressPromiseTests.downloadSize
            return StreamedResponse(status: .ok, headers: [.contentLength: "\(size)"], body: Self.chunked(size), url: request.url)
        }
    }

    /// A streamed body of `size` bytes in 16 KiB chunks.
    static func chunked(_ size: Int) -> ResponseBody {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self)
        var sent = 0
        while sent < size {
            let count = min(16 << 10, size - sent)
            continuation.yield(Data(repeating: 3, count: count))
            sent += count
        }
        continuation.finish()
        return ResponseBody(stream, expectedLength: size)
    }
}

/// A transport answering 200 with a body whose chunks the test feeds.
final class Shape2GatedBodyTransport: Transport {
    let chunks: AsyncStream<Data>
    let length: Int

    init(chunks: AsyncStream<Data>, length: Int) {
        self.chunks = chunks
        self.length = length
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        StreamedResponse(status: .ok, headers: [.contentLength: "\(length)"], body: ResponseBody(chunks, expectedLength: length), url: request.url)
    }
}
