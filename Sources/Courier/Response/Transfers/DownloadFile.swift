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
/// final `rename(2)` is atomic, on the same file system).
///
/// Anyone who can write to that directory can plant something at these names. So each is written
/// only as a fresh regular file of ours (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode `0600`), and
/// continued or read only when it is a regular file owned by this process's user with one link,
/// opened with `O_NOFOLLOW`; anything else there is removed (a name is unlinked, never followed)
/// and the download starts over. Only the holder of ``DownloadLock`` touches them. Errors are
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

    /// The saved resume state, if there is one, it is a regular file of ours with one link (never
    /// read through a symbolic link), and it decodes.
    func loadState() -> DownloadResumeData? {
        guard let data = DownloadFile.contents(ofOwnFile: state, maximumSize: Self.maximumStateSize) else { return nil }
        return Self.decodeState(data)
    }

    /// The most bytes a state file may have: a URL, a validator and three numbers fit many times.
    static let maximumStateSize = 64 << 10

    /// A state file's contents as resume data, or `nil` when they do not decode or do not make
    /// sense: negative counts, more bytes received than expected, or a validator that is not a
    /// valid header value (it is sent as `If-Range`). Such a state is dropped and the download
    /// starts over.
    static func decodeState(_ data: Data) -> DownloadResumeData? {
        guard data.count <= maximumStateSize, let decoded = try? JSONDecoder().decode(DownloadResumeData.self, from: data) else { return nil }
        guard decoded.receivedBytes >= 0, decoded.expectedBytes.map({ $0 >= decoded.receivedBytes }) ?? true,
            decoded.validator.map(isValidValidator) ?? true, decoded.temporaryFile.isFileURL
        else { return nil }
        return decoded
    }

    /// Whether `value` can be sent as `If-Range`: 1 to 1024 visible ASCII characters, spaces and
    /// tabs only inside.
    static func isValidValidator(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 1024 else { return false }
        return first != 0x20 && first != 0x09 && last != 0x20 && last != 0x09
            && bytes.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x09 }
    }

    /// Saves `resumeData` next to the partial file, readable by its owner only: whatever is at the
    /// name (a planted link included) is removed, and a new file is created in its place.
    func save(_ resumeData: DownloadResumeData) throws(CourierError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(resumeData)
        } catch {
            throw Self.failure("encoding the resume state", state, code: EINVAL)
        }
        let file = try DownloadFile.create(at: state)
        try file.write(data)
        try file.synchronize()
    }

    /// Creates a new, empty partial file (see ``DownloadFile/create(at:)``).
    func createPartial() throws(CourierError) -> DownloadFile {
        try DownloadFile.create(at: temporary)
    }

    /// Opens the partial file to continue it, when it is a regular file of ours with one link
    /// (see ``DownloadFile/openOwn(at:)``); anything else at its name is removed with the saved
    /// state, and the download starts over.
    func openPartial() throws(CourierError) -> DownloadFile? {
        switch try DownloadFile.openOwn(at: temporary) {
        case .opened(let file): return file
        case .absent: return nil
        case .foreign:
            removeLeftovers()
            return nil
        }
    }

    /// Removes the partial file and its state (after a restart, a cancel, or a success). Names
    /// are unlinked, never followed.
    func removeLeftovers() {
        unlink(temporary.path)
        removeState()
    }

    /// Removes the saved state: what is on disk cannot be continued.
    func removeState() {
        unlink(state.path)
    }

    /// The size of the partial file (not followed if it is a link), or 0 if there is none.
    func temporarySize() -> Int64 {
        var info = stat()
        guard lstat(temporary.path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Moves the complete partial `file` to the destination in one step (replacing what was
    /// there), then syncs the directory so that the new name survives a crash.
    ///
    /// The file gets the mode of the file it replaces, or, when there is none, the usual mode of
    /// a new file (`0666` less the umask, as `curl -o` gives): it was `0600` while partial. The
    /// name must still lead to `file` itself: a link or another file swapped in is refused.
    func commit(_ file: DownloadFile) throws(CourierError) {
        var named = stat()
        var held = stat()
        guard lstat(temporary.path, &named) == 0, fstat(file.descriptor, &held) == 0, named.st_dev == held.st_dev,
            named.st_ino == held.st_ino
        else {
            throw .transport(
                TransportFailure(
                    synthesizing: .fileSystem, url: nil,
                    message: "\(temporary.path) is no longer the partial file this download wrote; nothing was moved to \(destination.path)"))
        }
        guard fchmod(file.descriptor, finalMode()) == 0 else { throw Self.failure("setting the mode of", temporary, code: errno) }
        guard rename(temporary.path, destination.path) == 0 else {
            throw Self.failure("moving the download into place at", destination, code: errno)
        }
        let directory = open(destination.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = durableSync(directory)
            _ = systemClose(directory)
        }
        unlink(state.path)
    }

    /// The mode of the regular file at the destination, or `0666` less the umask.
    func finalMode() -> mode_t {
        var existing = stat()
        if lstat(destination.path, &existing) == 0, existing.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) {
            return existing.st_mode & 0o777
        }
        return 0o666 & ~Self.processUmask()
    }

    /// The process's umask: from `/proc/self/status` on Linux (read without changing it), else
    /// set to `077` and back (another thread creating a file meanwhile gets a stricter mode,
    /// never a looser one).
    static func processUmask() -> mode_t {
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
                let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
            {
                return value
            }
        #endif
        let value = umask(0o077)
        umask(value)
        return value
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

    private init(descriptor: Int32, url: URL, position: Int64) {
        self.descriptor = descriptor
        self.url = url
        self.position = position
        writeBackStart = position
    }

    /// The size of the file when it was opened, plus what was written since.
    var size: Int64 { position }

    /// Creates a new, empty file at `url`, mode `0600`, that only this process writes: whatever
    /// is at the name (a link, a file planted by someone else) is removed first, not followed,
    /// and the file is created with `O_CREAT | O_EXCL | O_NOFOLLOW`, so that nothing swapped in
    /// meanwhile is opened instead.
    /// - Throws: a ``TransportFailure/Kind/fileSystem`` failure naming the file and the reason
    ///   (`File exists` when something keeps reappearing at the name).
    static func create(at url: URL) throws(CourierError) -> DownloadFile {
        var code: Int32 = EEXIST
        for _ in 0..<3 {
            unlink(url.path)
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                // The umask may have taken bits away, never added any: 0600 stays 0600 or less.
                _ = fchmod(descriptor, 0o600)
                return DownloadFile(descriptor: descriptor, url: url, position: 0)
            }
            code = errno
            guard code == EEXIST else { break }
        }
        throw DownloadPaths.failure("creating", url, code: code)
    }

    /// What ``openOwn(at:)`` found.
    enum Opened {
        case opened(DownloadFile)
        case absent
        /// Something at the name that this process must not write: a link, a directory, a FIFO,
        /// a file with another link (a hard link to a file elsewhere) or of another owner.
        case foreign
    }

    /// Opens the existing file at `url` for writing at its end, only if it is a regular file
    /// owned by this process's user with one link, and never through a symbolic link
    /// (`O_NOFOLLOW`, then `fstat`).
    static func openOwn(at url: URL) throws(CourierError) -> Opened {
        let descriptor = open(url.path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return .absent }
            if code == ELOOP || code == EMLINK || code == EISDIR || code == ENXIO || code == EACCES || code == EPERM { return .foreign }
            throw DownloadPaths.failure("opening", url, code: code)
        }
        // O_NONBLOCK only kept `open` from waiting on a FIFO; the regular file is written plainly.
        let flags = fcntl(descriptor, F_GETFL)
        guard isOwnRegularFile(descriptor), flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            _ = systemClose(descriptor)
            return .foreign
        }
        let end = lseek(descriptor, 0, SEEK_END)
        return .opened(DownloadFile(descriptor: descriptor, url: url, position: Int64(max(end, 0))))
    }

    /// The contents of `url` when it is a regular file of ours with one link and at most
    /// `maximumSize` bytes, read without following a link; `nil` otherwise.
    static func contents(ofOwnFile url: URL, maximumSize: Int) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { _ = systemClose(descriptor) }
        var info = stat()
        guard isOwnRegularFile(descriptor), fstat(descriptor, &info) == 0, info.st_size <= maximumSize else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while data.count <= maximumSize {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
        return nil
    }

    /// Whether the open file is a regular file with one link, owned by this process's user.
    private static func isOwnRegularFile(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) && info.st_nlink == 1
            && info.st_uid == geteuid()
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
