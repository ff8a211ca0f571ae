#if EncryptedTokenStore
    import Foundation

    extension FileTokenStore: CoordinatedTokenStore {
        /// The lock file's name for a token file named `name`: `.<name>.lock`, in the same directory.
        static func lockFileName(for name: String) -> String {
            ".\(name).lock"
        }

        /// Runs `body` holding an exclusive advisory lock (`flock`) on the lock file next to the
        /// token file (`.token.lock` for `token`), so other processes, and other stores of the same
        /// file in this process, wait while `body` reads, refreshes and writes.
        ///
        /// ``TokenRefresher`` calls it around every refresh, reset and sign-out. The lock binds only
        /// code that asks for it, not someone writing the file by hand. Not reentrant.
        ///
        /// ```swift
        /// try await store.withExclusiveAccess {
        ///     if let credential = try await store.load() { try await store.save(adjusted(credential)) }
        /// }
        /// ```
        /// - Throws: whatever `body` throws, unchanged; ``TokenStoreError/io(_:underlyingError:)`` if the lock file
        ///   cannot be opened or locked, if the lock is still held elsewhere after 60 seconds, or
        ///   for a nested call; `CancellationError` if the calling task is cancelled while waiting.
        @discardableResult
        public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
            // Waiting never blocks a thread: the lock is polled without blocking (`LOCK_NB`), 1 ms apart
            // at first and then at most 50 ms apart, for up to 60 seconds (twice the token endpoint's
            // default timeout). The lock file is created `0600` on first use, under the same rules as the
            // token file (a regular file, never through a symbolic link), and is never deleted: deleting
            // a lock file others may hold breaks it.
            let store = ObjectIdentifier(self)
            if Self.locksHeldByTask.contains(where: { $0.store == store && activeLocks.contains($0.id) }) {
                throw TokenStoreError.io("withExclusiveAccess on \(url.path) was called from inside its own body; it is not reentrant")
            }
            let directory = url.deletingLastPathComponent()
            let name = Self.lockFileName(for: url.lastPathComponent)
            let fd = try SecureFileIO.openLockFile(named: name, in: directory)
            defer { _ = close(fd) }  // closing the descriptor releases the lock
            try await acquireLock(fd, path: directory.appendingPathComponent(name).path)

            nextLockID &+= 1
            let hold = HeldLock(store: store, id: nextLockID)
            activeLocks.insert(hold.id)
            defer { activeLocks.remove(hold.id) }
            return try await Self.$locksHeldByTask.withValue(Self.locksHeldByTask.union([hold])) {
                try await body()
            }
        }

        /// Polls the lock with `LOCK_NB`, sleeping between tries on ``lockWaiting``.
        private func acquireLock(_ fd: Int32, path: String) async throws {
            var delay = Duration.milliseconds(1)
            var waited = Duration.zero
            while true {
                if try SecureFileIO.tryLock(fd, path: path) { return }
                if waited >= lockWaiting.timeout {
                    throw TokenStoreError.io("the lock \(path) is still held by another process or store after \(lockWaiting.timeout)")
                }
                try await lockWaiting.sleep(delay)
                waited += delay
                delay = min(delay * 2, .milliseconds(50))
            }
        }

        /// Replaces how long and how the lock is waited for (tests use an instant sleep).
        func setLockWaiting(_ waiting: LockWaiting) {
            lockWaiting = waiting
        }
    }

    /// How ``FileTokenStore`` waits for its lock: the longest total wait, and the sleep between
    /// tries (injectable, so tests do not sleep).
    struct LockWaiting: Sendable {
        var timeout: Duration = .seconds(60)
        var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    }

    /// One `withExclusiveAccess` in progress: which store, which call.
    struct HeldLock: Hashable, Sendable {
        var store: ObjectIdentifier
        var id: UInt64
    }
#endif
