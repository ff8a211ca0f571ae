import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of a download to `destination`: the partial body `.<name>.courier-download` and its
/// resume state `.<name>.courier-download.json`, both in the destination's directory (so the
/// final `rename(2)` is atomic, on the same file system). Errors are
/// ``TransportFailure/Kind/fileSystem`` failures naming the operation, the file and `errno`.
struct DownloadPaths {
    let destination: URL
    let temporary: URL
    let state: URL
    /// `.<name>.courier-download.lock`: held by the one download writing these files.
    let lock: URL

    init(destination: URL) {
        self.destination = destination.standardizedFileURL
        let directory = self.destination.deletingLastPathComponent()
        let name = "." + self.destination.lastPathComponent + ".courier-download"
        temporary = directory.appendingPathComponent(name)
        state = directory.appendingPathComponent(name + ".json")
        lock = directory.appendingPathComponent(name + ".lock")
    }

    /// The saved resume state, if there is one and it is readable.
    func loadState() -> DownloadResumeData? {
        guard let data = try? Data(contentsOf: state) else { return nil }
        return try? JSONDecoder().decode(DownloadResumeData.self, from: data)
    }

    /// Saves `resumeData` next to the partial file, readable by its owner only.
    func save(_ resumeData: DownloadResumeData) throws(CourierError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(resumeData)
        } catch {
            throw Self.failure("encoding the resume state", state, code: EINVAL)
        }
        let file = try DownloadFile(creating: state, truncate: true)
        try file.write(data)
        try file.synchronize()
    }

    /// Removes the partial file and its state (after a restart, a cancel, or a success).
    func removeLeftovers() {
        unlink(temporary.path)
        removeState()
    }

    /// Removes the saved state: what is on disk cannot be continued.
    func removeState() {
        unlink(state.path)
    }

    /// The size of the partial file, or 0 if there is none.
    func temporarySize() -> Int64 {
        var info = stat()
        guard stat(temporary.path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Moves the complete partial file to the destination in one step (replacing what was
    /// there), then syncs the directory so that the new name survives a crash.
    func commit() throws(CourierError) {
        guard rename(temporary.path, destination.path) == 0 else {
            throw Self.failure("moving the download into place at", destination, code: errno)
        }
        let directory = open(destination.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            _ = durableSync(directory)
            _ = systemClose(directory)
        }
        unlink(state.path)
    }

    /// A file-system failure: what was being done, to which file, and the system's reason.
    static func failure(_ operation: String, _ file: URL, code: Int32) -> CourierError {
        let reason = String(cString: strerror(code))
        return .transport(
            TransportFailure(
                synthesizing: .fileSystem, url: nil, message: "\(operation) \(file.path) failed: \(reason) (errno \(code))"))
    }
}

/// The right to write one destination's partial file: an exclusive `flock(2)` on
/// `.<name>.courier-download.lock`, taken without waiting, held for a whole run of a download
/// (every resume attempt in it) and released when the run ends, however it ends.
///
/// Without it, two downloads to the same destination (two calls in this process, or two
/// processes) would write into the same partial file and commit a mix of both. The second one
/// fails at once instead, naming the destination.
///
/// The lock file is removed on release, while still locked. A download that opened it just
/// before then gets the lock on a file that no longer has the name, so after locking it checks
/// that the name still leads to the file it locked, and starts over when it does not. A lock
/// file left by a crashed process is no obstacle: the kernel released its lock with the process.
final class DownloadLock {
    private let descriptor: Int32
    private let url: URL

    /// Takes the lock of `paths`.
    /// - Throws: a ``TransportFailure/Kind/fileSystem`` failure when another download holds it,
    ///   or when the lock file cannot be created.
    init(_ paths: DownloadPaths) throws(CourierError) {
        url = paths.lock
        for _ in 0..<8 {
            let descriptor = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw DownloadPaths.failure("creating the lock file", url, code: errno) }
            var locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            while !locked, errno == EINTR { locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0 }
            guard locked else {
                let code = errno
                _ = systemClose(descriptor)
                if code == EWOULDBLOCK || code == EAGAIN {
                    throw .transport(
                        TransportFailure(
                            synthesizing: .fileSystem, url: nil,
                            message: "another download to \(paths.destination.path) is in progress (\(url.lastPathComponent) is locked)"))
                }
                throw DownloadPaths.failure("locking", url, code: code)
            }
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(url.path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                self.descriptor = descriptor
                return
            }
            _ = systemClose(descriptor)  // removed by its last holder after we opened it: open anew
        }
        throw DownloadPaths.failure("locking", url, code: EAGAIN)
    }

    /// Removes the lock file, then releases the lock.
    deinit {
        unlink(url.path)
        _ = systemClose(descriptor)
    }
}

/// An open file written with `write(2)`, closed when released; used by one task at a time.
///
/// On Linux the kernel is asked to start writing each completed 8 MiB window to the disk while
/// the next one arrives (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`, which only starts
/// write-back). Without it, every byte would still be dirty in the page cache when the
/// download ends, and the `fsync(2)` that makes the rename safe would pay for the whole file's
/// disk time after the last byte, instead of overlapping it with the network.
final class DownloadFile {
    let descriptor: Int32
    let url: URL
    /// Where the next write lands.
    private var position: Int64
    /// Bytes before this offset have been handed to write-back.
    private var writeBackStart: Int64
    /// The ranges handed to write-back so far (offset, count), for tests.
    private(set) var writeBacks: [(offset: Int64, count: Int64)] = []

    /// The window after which write-back is started: large enough for the disk to merge the
    /// writes, small enough that the final `fsync` waits for at most about two windows.
    static let writeBackWindow: Int64 = 8 << 20

    /// Opens (creating it, mode 0600) `url` for writing at its end, truncated first if `truncate`.
    init(creating url: URL, truncate: Bool) throws(CourierError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND)
        let descriptor = open(url.path, flags, 0o600)
        guard descriptor >= 0 else { throw DownloadPaths.failure("opening", url, code: errno) }
        let end = lseek(descriptor, 0, SEEK_END)
        self.descriptor = descriptor
        self.url = url
        position = Int64(max(end, 0))
        writeBackStart = position
    }

    /// Cuts the file to `length` bytes and writes from there on.
    func truncate(to length: Int64) throws(CourierError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw DownloadPaths.failure("truncating", url, code: errno) }
        guard lseek(descriptor, off_t(length), SEEK_SET) >= 0 else { throw DownloadPaths.failure("seeking in", url, code: errno) }
        position = length
        writeBackStart = length
    }

    /// Writes all of `data`, however many `write(2)` calls it takes.
    func write(_ data: Data) throws(CourierError) {
        let result: Int32 = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        guard result == 0 else { throw DownloadPaths.failure("writing to", url, code: result) }
        position += Int64(data.count)
        if position - writeBackStart >= Self.writeBackWindow {
            startWriteBack(from: writeBackStart, count: position - writeBackStart)
            writeBacks.append((writeBackStart, position - writeBackStart))
            writeBackStart = position
        }
    }

    /// Flushes what was written to the disk (``durableSync(_:)``).
    func synchronize() throws(CourierError) {
        guard durableSync(descriptor) == 0 else { throw DownloadPaths.failure("syncing", url, code: errno) }
    }

    deinit {
        _ = systemClose(descriptor)
    }
}

/// Starts writing `count` bytes from `offset` of `descriptor`'s file to the disk without
/// waiting for it (Linux's `sync_file_range(2)`); a no-op elsewhere. Only a hint: durability
/// still comes from ``DownloadFile/synchronize()``, so a failure here is ignored.
extension DownloadFile {
    fileprivate func startWriteBack(from offset: Int64, count: Int64) {
        #if os(Linux)
            guard let syncFileRange = Self.syncFileRange else { return }
            _ = syncFileRange(descriptor, offset, count, 2 /* SYNC_FILE_RANGE_WRITE */)
        #endif
    }

    /// Whether write-back can be started early on this system (Linux's `sync_file_range(2)`).
    static var canStartWriteBack: Bool {
        #if os(Linux)
            syncFileRange != nil
        #else
            false
        #endif
    }

    #if os(Linux)
        /// `sync_file_range(2)`, looked up once: Glibc declares it only under `_GNU_SOURCE`,
        /// which Swift's Glibc module does not define.
        private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sync_file_range") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        }()
    #endif
}

/// `close(2)`, from the platform's C library.
private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
        Darwin.close(descriptor)
    #elseif canImport(Musl)
        Musl.close(descriptor)
    #else
        Glibc.close(descriptor)
    #endif
}

/// `write(2)`, from the platform's C library.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        Darwin.write(descriptor, bytes, count)
    #elseif canImport(Musl)
        Musl.write(descriptor, bytes, count)
    #else
        Glibc.write(descriptor, bytes, count)
    #endif
}
