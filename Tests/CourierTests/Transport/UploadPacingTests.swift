#if AsyncHTTPClientLinked
    import Foundation
    import NIOCore
    import NIOPosix
    import Testing

    @testable import Courier

    /// A streamed upload over async-http-client waits for the client's event loops after every
    /// MiB it hands over, so a producer faster than a busy loop cannot queue the body in memory.
    @Suite("Upload pacing over async-http-client")
    struct UploadPacingTests {
        /// 64 KiB chunks, counting the bytes handed out.
        struct CountingChunks: AsyncSequence, Sendable {
            let chunks: Int
            let handedOut: LockedState<Int>

            struct AsyncIterator: AsyncIteratorProtocol {
                var left: Int
                let handedOut: LockedState<Int>

                mutating func next() async -> Data? {
                    guard left > 0 else { return nil }
                    left -= 1
                    handedOut.withLock { $0 += 64 << 10 }
                    return Data(repeating: 7, count: 64 << 10)
                }
            }

            func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: chunks, handedOut: handedOut) }
        }

        @Test(
            "the iterator waits for the event loops after each MiB handed over, and at no other time",
            arguments: [(chunks: 64, paces: [1, 2, 3, 4]), (chunks: 15, paces: []), (chunks: 17, paces: [1])])
        func pacesEveryMebibyte(chunks: Int, paces expected: [Int]) async throws {
            let handedOut = LockedState(0)
            let paces = LockedState<[Int]>([])
            let buffers = BodyStreamBuffers(
                stream: BodyStream(CountingChunks(chunks: chunks, handedOut: handedOut)),
                lifetime: RequestBodyLifetime(), paceInterval: 1 << 20,
                pace: { paces.withLock { $0.append(handedOut.withLock { $0 }) } })
            var sent = 0
            for try await buffer in buffers { sent += buffer.readableBytes }
            #expect(sent == chunks << 16)
            #expect(paces.withLock { $0 } == expected.map { $0 << 20 })
        }

        @Test("the interval is a MiB on up to 7 loops, and a MiB per 4 loops on larger groups", arguments: [(1, 1), (2, 1), (7, 1), (8, 2), (64, 16)])
        func theIntervalGrowsWithTheGroup(loops: Int, mebibytes: Int) async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
            let buffers = BodyStreamBuffers(
                stream: BodyStream(CountingChunks(chunks: 0, handedOut: LockedState(0))), lifetime: RequestBodyLifetime(), loops: group)
            #expect(buffers.paceInterval == mebibytes << 20)
            try await group.shutdownGracefully()
        }

        @Test("a drain returns only after every task submitted to each of the group's loops before it has run")
        func drainFollowsEarlierWork() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            let ran = LockedState(0)
            let release = DispatchSemaphore(value: 0)
            // Each loop is busy until released, with a task queued behind the busy one.
            for loop in group.makeIterator() {
                loop.execute { release.wait() }
                loop.execute { ran.withLock { $0 += 1 } }
            }
            let drained = Task { await BodyStreamBuffers.drain(group) }
            #expect(ran.withLock { $0 } == 0)
            release.signal()
            release.signal()
            await drained.value
            #expect(ran.withLock { $0 } == 2)
            try await group.shutdownGracefully()
        }
    }
#endif
