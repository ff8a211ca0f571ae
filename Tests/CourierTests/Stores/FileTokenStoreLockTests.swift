#if EncryptedTokenStore
    @testable import Courier
    import CourierTesting
    import Foundation
    import Testing

    /// Runs `executable` with `arguments`, feeding it nothing; returns its exit status without
    /// blocking a thread of the cooperative pool.
    func runProcess(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Issue 9, defect 7: two processes sharing one token file overwrote each other's rotated
    /// refresh tokens. `FileTokenStore.withExclusiveAccess` holds a `flock` on `.<name>.lock`;
    /// `flock` locks belong to open file descriptions, so two stores of one file in this process
    /// exclude each other exactly as two processes do, and `flock(1)` checks it from a real second
    /// process.
    @Suite("FileTokenStore: an advisory lock shared by processes and stores of one file", .heavy, .timeLimit(.minutes(5)))
    struct FileTokenStoreLockTests {
        static let flockTool = "/usr/bin/flock"

        /// An instant sleep that counts the polls (no real waiting in tests that only need to know
        /// that the lock was contended).
        ///
        /// Its timeout is a year of polls: with instant sleeps, 60 s of "waiting" is ~1,200 yields,
        /// which a waiter spun through while the holder was still in `fsync` (seen: every filtered
        /// run of `twoStoresOneRefresh` failed with "still held after 60.0 seconds" in 16 ms). A
        /// real deadlock still ends the test at the suite's time limit.
        static func countingSleep(_ polls: Locked<Int>, contended: Gate? = nil) -> LockWaiting {
            LockWaiting(timeout: .seconds(365 * 86_400)) { _ in
                polls.withValue { $0 += 1 }
                await contended?.open()
                await Task.yield()
            }
        }

        @Test("50 trials: two refreshers on two stores of one file, both holding the same expired token: one refresh, one token, on disk")
        func twoStoresOneRefresh() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                for trial in 0..<50 {
                    let clock = WallClock(), mint = TokenMint(clock: clock)
                    try await makeFileStore(.rawKey, at: url).save(clock.credential("old", expiresIn: -1))
                    let used = Locked<[String?]>([])
                    let polls = Locked(0)
                    var refreshers: [TokenRefresher] = []
                    for _ in 0..<2 {
                        let store = try makeFileStore(.rawKey, at: url)  // its own descriptors, like another process
                        await store.setLockWaiting(Self.countingSleep(polls))
                        let refresher = TokenRefresher(store: store, now: clock.closure) { current in
                            used.withValue { $0.append(current?.refreshToken) }
                            return mint.next()
                        }
                        _ = try await refresher.currentCredential()  // both loaded "old" first
                        refreshers.append(refresher)
                    }
                    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                        for index in 0..<40 {
                            let refresher = refreshers[index % 2]
                            group.addTask { try await refresher.validCredential().accessToken }
                        }
                        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                    }
                    #expect(tokens == ["at-1"], "trial \(trial)")
                    #expect(used.value == ["rt-old"], "trial \(trial)")
                    #expect(try await makeFileStore(.rawKey, at: url).load()?.accessToken == "at-1")
                }
                #expect(try StoreFixtures.contents(of: directory) == [".token.lock", "token"])
                #expect(try StoreFixtures.permissions(of: directory.appendingPathComponent(".token.lock")) == 0o600)
            }
        }

        @Test("while a store holds the lock another store waits, polling, and gets it once released")
        func secondStoreWaits() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let holder = try makeFileStore(.rawKey, at: url), waiter = try makeFileStore(.rawKey, at: url)
                let polls = Locked(0), contended = Gate(), inside = Gate(), release = Gate()
                await waiter.setLockWaiting(Self.countingSleep(polls, contended: contended))
                let order = Locked<[String]>([])

                let first = Task {
                    try await holder.withExclusiveAccess {
                        await inside.open()
                        await release.wait()
                        order.withValue { $0.append("holder done") }
                    }
                }
                await inside.wait()
                let second = Task {
                    try await waiter.withExclusiveAccess { order.withValue { $0.append("waiter in") } }
                }
                await contended.wait()  // the waiter found the lock taken and is polling
                await release.open()
                try await first.value
                try await second.value
                #expect(order.value == ["holder done", "waiter in"])
                #expect(polls.value >= 1)
            }
        }

        @Test("a lock held past the timeout is a typed .io error, and the body never runs")
        func timeout() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let holder = try makeFileStore(.rawKey, at: url), waiter = try makeFileStore(.rawKey, at: url)
                let slept = Locked(Duration.zero)
                await waiter.setLockWaiting(LockWaiting(timeout: .seconds(2)) { delay in slept.withValue { $0 += delay } })
                let ran = Locked(false)
                try await holder.withExclusiveAccess {
                    await #expect {
                        try await waiter.withExclusiveAccess { ran.withValue { $0 = true } }
                    } throws: { error in
                        guard case .io(let message, _)? = error as? TokenStoreError else { return false }
                        return message.contains("is still held by another process or store after 2.0 seconds")
                    }
                }
                #expect(!ran.value)
                #expect(slept.value >= .seconds(2) && slept.value < .seconds(2.1))  // 1, 2, 4 … 50 ms steps
            }
        }

        @Test("a nested withExclusiveAccess on the same store throws at once instead of waiting for itself")
        func nestedCallThrows() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try makeFileStore(.rawKey, at: directory.appendingPathComponent("token"))
                try await store.withExclusiveAccess {
                    await #expect {
                        try await store.withExclusiveAccess {}
                    } throws: { error in
                        guard case .io(let message, _)? = error as? TokenStoreError else { return false }
                        return message.contains("not reentrant")
                    }
                }
                try await store.withExclusiveAccess {}  // and the lock is free again afterwards
            }
        }

        @Test("a task cancelled while waiting for the lock stops waiting")
        func cancelledWhileWaiting() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let holder = try makeFileStore(.rawKey, at: url), waiter = try makeFileStore(.rawKey, at: url)
                let contended = Gate()
                await waiter.setLockWaiting(
                    LockWaiting(timeout: .seconds(60)) { _ in
                        await contended.open()
                        try await suspendUntilCancelled()  // only cancellation ends it
                    })
                try await holder.withExclusiveAccess {
                    let waiting = Task { try await waiter.withExclusiveAccess {} }
                    await contended.wait()
                    waiting.cancel()
                    await #expect(throws: CancellationError.self) { try await waiting.value }
                }
            }
        }

        @Test("a symbolic link or FIFO at the lock file's path is refused, never followed", arguments: ["symlink", "fifo"])
        func hostileLockFile(kind: String) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let lock = directory.appendingPathComponent(".token.lock")
                let target = directory.appendingPathComponent("planted")
                if kind == "symlink" {
                    try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: target)
                } else {
                    #expect(mkfifo(lock.path, 0o600) == 0)
                }
                let store = try makeFileStore(.rawKey, at: directory.appendingPathComponent("token"))
                let ran = Locked(false)
                await #expect(throws: TokenStoreError.self) {
                    try await store.withExclusiveAccess { ran.withValue { $0 = true } }
                }
                #expect(!ran.value)
                #expect(!FileManager.default.fileExists(atPath: target.path))
            }
        }

        @Test(
            "across real processes: flock(1) in a child process sees the lock held inside withExclusiveAccess, and free after",
            .enabled(if: FileManager.default.isExecutableFile(atPath: flockTool)))
        func anotherProcessSeesTheLock() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try makeFileStore(.rawKey, at: directory.appendingPathComponent("token"))
                let lockPath = directory.appendingPathComponent(".token.lock").path
                // `flock -n` exits 1 at once when the lock is taken, 0 when it got it.
                let whileHeld = try await store.withExclusiveAccess {
                    try await runProcess(Self.flockTool, ["-n", "-E", "7", lockPath, "true"])
                }
                let afterwards = try await runProcess(Self.flockTool, ["-n", "-E", "7", lockPath, "true"])
                #expect(whileHeld == 7)
                #expect(afterwards == 0)
            }
        }

        @Test(
            "across real processes: while a child process holds the lock, withExclusiveAccess waits for it to exit",
            .enabled(if: FileManager.default.isExecutableFile(atPath: flockTool)))
        func waitsForAnotherProcess() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try makeFileStore(.rawKey, at: directory.appendingPathComponent("token"))
                let lockPath = directory.appendingPathComponent(".token.lock").path
                let fifoPath = directory.appendingPathComponent("go").path
                #expect(mkfifo(fifoPath, 0o600) == 0)
                // The child takes the lock, says so by creating `held`, waits until the test writes
                // to the FIFO `go`, deletes `held` and exits, which releases the lock.
                let held = directory.appendingPathComponent("held").path
                let child = Task {
                    try await runProcess(Self.flockTool, [lockPath, "sh", "-c", "touch '\(held)'; read line < '\(fifoPath)'; rm '\(held)'"])
                }
                let contended = Gate()
                let polls = Locked(0)
                await store.setLockWaiting(
                    LockWaiting(timeout: .seconds(60)) { delay in
                        polls.withValue { $0 += 1 }
                        await contended.open()
                        try await Task.sleep(for: delay)  // the real poll interval: another process must run
                    })
                while !FileManager.default.fileExists(atPath: held) { await Task.yield() }
                let section = Task {
                    // Inside the lock: the child must have finished its locked section.
                    try await store.withExclusiveAccess { FileManager.default.fileExists(atPath: held) }
                }
                await contended.wait()  // our store found the child's lock and polls
                let writer = FileHandle(forWritingAtPath: fifoPath)  // opens once the child reads
                writer?.write(Data("go\n".utf8))
                try writer?.close()
                #expect(try await child.value == 0)
                #expect(try await section.value == false)
                #expect(polls.value >= 1)
            }
        }
    }
#endif
