#if EncryptedTokenStore
    @testable import Courier
    import Foundation
    import Testing
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Issue 9, defect 7: the token path was opened without `O_NOFOLLOW`/`O_NONBLOCK` and without
    /// checking it is a regular file. A FIFO there hung `load()`; a symbolic link was followed.
    @Suite("FileTokenStore: a symbolic link, FIFO, directory or huge file at the token path is a typed error")
    struct FileTokenStoreHostilePathTests {
        /// The `.io` message of `result`, or `nil` (recording an issue) if it is anything else.
        func ioMessage<T>(_ result: Result<T, TokenStoreError>) -> String? {
            guard case .failure(.io(let message, _)) = result else {
                Issue.record("expected .io, got \(result)")
                return nil
            }
            return message
        }

        func saveResult(_ store: FileTokenStore, _ credential: TokenCredential = StoreFixtures.credential()) async -> Result<Void, TokenStoreError> {
            do throws(TokenStoreError) {
                return .success(try await store.save(credential))
            } catch {
                return .failure(error)
            }
        }

        @Test("a FIFO at the token path: load fails at once with .io instead of waiting for a writer; save leaves it alone")
        func fifo() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                #expect(mkfifo(url.path, 0o600) == 0)
                let store = try makeFileStore(.rawKey, at: url)
                #expect(ioMessage(await loadResult(store))?.hasSuffix("is a FIFO, not a regular file") == true)
                #expect(ioMessage(await saveResult(store))?.contains("is a FIFO, not a regular file; refusing to replace it") == true)
                var status = stat()
                #expect(lstat(url.path, &status) == 0 && status.st_mode & mode_t(S_IFMT) == mode_t(S_IFIFO))
                #expect(try StoreFixtures.contents(of: directory) == ["token"])  // no temporary file left
            }
        }

        @Test("a symbolic link to a valid token file is not followed by load, nor replaced by save")
        func symlinkToValidFile() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let real = directory.appendingPathComponent("elsewhere")
                try await makeFileStore(.rawKey, at: real).save(StoreFixtures.credential(1))
                let before = try Data(contentsOf: real)
                let link = directory.appendingPathComponent("token")
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)

                let store = try makeFileStore(.rawKey, at: link)
                #expect(ioMessage(await loadResult(store))?.hasSuffix("is a symbolic link, not a regular file") == true)
                #expect(ioMessage(await saveResult(store, StoreFixtures.credential(2)))?.contains("is a symbolic link") == true)
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
                #expect(try Data(contentsOf: real) == before)
            }
        }

        @Test("a dangling symbolic link is .io, not an empty store, and save does not create its target")
        func danglingSymlink() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let target = directory.appendingPathComponent("planted")
                let link = directory.appendingPathComponent("token")
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
                let store = try makeFileStore(.passphrase, at: link)
                #expect(ioMessage(await loadResult(store)) != nil)
                #expect(ioMessage(await saveResult(store)) != nil)
                #expect(!FileManager.default.fileExists(atPath: target.path))
            }
        }

        @Test("a sparse 10 GiB file is refused by its size before anything is read")
        func hugeFile() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                #expect(FileManager.default.createFile(atPath: url.path, contents: Data("CRTK".utf8)))
                #expect(truncate(url.path, 10 << 30) == 0)
                let result = await loadResult(try makeFileStore(.rawKey, at: url))
                guard case .failure(.corrupted(let reason)) = result else {
                    Issue.record("expected .corrupted, got \(result)")
                    return
                }
                #expect(reason == "file is larger than \(TokenFileFormat.maximumFileSize) bytes")
            }
        }

        @Test("a file of exactly the limit is read; one byte more is refused", arguments: [0, 1])
        func sizeLimitBoundary(extra: Int) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let size = TokenFileFormat.maximumFileSize + extra
                #expect(FileManager.default.createFile(atPath: url.path, contents: Data(repeating: 0x43, count: size)))
                do throws(TokenStoreError) {
                    let data = try SecureFileIO.contents(of: url, maximumSize: TokenFileFormat.maximumFileSize)
                    #expect(extra == 0 && data?.count == size)
                } catch {
                    #expect(extra == 1 && error == .corrupted("file is larger than \(TokenFileFormat.maximumFileSize) bytes"))
                }
            }
        }

        @Test("the parent path being a file is .io for save")
        func parentIsAFile() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let parent = directory.appendingPathComponent("not-a-directory")
                #expect(FileManager.default.createFile(atPath: parent.path, contents: Data()))
                let store = try makeFileStore(.rawKey, at: parent.appendingPathComponent("token"))
                #expect(ioMessage(await saveResult(store))?.hasSuffix("exists and is not a directory") == true)
            }
        }
    }
#endif
