import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small POSIX helpers for a secret-holding file: read it (bounded), replace it atomically with
/// a file that is `0600` from the moment it exists, remove it.
///
/// Foundation's `Data.write(to:options: .atomic)` creates its temporary file with the default
/// mode and changes it afterwards, and does not `fsync`; these helpers do neither.
///
/// The token path must be a regular file (or absent). Nothing here follows a symbolic link at
/// it or opens a FIFO or device there: every `open` has `O_NOFOLLOW` and `O_NONBLOCK` (a FIFO
/// opened without it blocks until a writer appears: `load()` would hang) and is followed by
/// an `fstat` that must say "regular file". The temporary file and the rename are made relative
/// to one descriptor of the directory, so the directory cannot be swapped between the steps.
enum SecureFileIO {
    /// Permissions of the file: read and write for the owner only.
    static let fileMode: mode_t = 0o600
    /// Permissions of a parent directory this code creates: owner only.
    static let directoryMode: Int = 0o700

    /// The file's whole contents, or `nil` if it does not exist.
    /// - Parameter ownedByThisUser: also refuse a file that another user owns or may write (what
    ///   this process did not write cannot be trusted).
    /// - Throws: `.io` if it cannot be opened or read, or is a symbolic link, a FIFO, a device or
    ///   anything else but a regular file; `.corrupted` if it is larger than `maximumSize` (told
    ///   by its size, before reading; a file that grows while being read is cut off at
    ///   `maximumSize + 1` bytes and refused the same way), or, with `ownedByThisUser`, if
    ///   another user owns it or may write it.
    static func contents(of url: URL, maximumSize: Int, ownedByThisUser: Bool = false) throws(TokenStoreError) -> Data? {
        let path = url.path
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw openError(code, path: path)
        }
        defer { _ = close(fd) }
        let size = try regularFileSize(fd, path: path)
        if size > maximumSize {
            throw .corrupted("file is larger than \(maximumSize) bytes")
        }
        if ownedByThisUser {
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_uid == geteuid(), status.st_mode & mode_t(0o022) == 0 else {
                throw .corrupted("\(path) belongs to another user or is writable by others")
            }
        }
        try clearNonBlocking(fd, path: path)

        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            // Never more than one byte past the limit, whatever the file claims (and no overflow
            // for a limit of `Int.max`).
            let room = maximumSize - contents.count
            let wanted = room >= buffer.count ? buffer.count : room + 1
            let count = buffer.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress, wanted)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Self.ioFailure(code, "cannot read \(path)")
            }
            if count == 0 { return contents }
            contents.append(contentsOf: buffer[0..<count])
            if contents.count > maximumSize {
                throw .corrupted("file is larger than \(maximumSize) bytes")
            }
        }
    }

    /// Replaces the file at `url` with `data` atomically, so a reader sees the old file or the new
    /// one, never a part. The file is created `0600`; a missing parent directory is created `0700`.
    ///
    /// With `synchronizing: false` (a cache's entries, which a checksum protects and which may be
    /// lost) nothing is `fsync`ed: the rename is still atomic against concurrent readers and a
    /// crash of the process, not against a power loss. With
    /// `protectedUntilFirstUserAuthentication`, on iOS, tvOS, watchOS and visionOS the file gets
    /// `FileProtectionType.completeUntilFirstUserAuthentication`; elsewhere it changes nothing.
    /// - Throws: `.io` naming the step that failed, or saying that the target exists and is not a
    ///   regular file (a symbolic link, a directory, a FIFO…: it is left alone); the temporary
    ///   file is removed.
    static func writeAtomically(
        _ data: Data, to url: URL, synchronizing: Bool = true, protectedUntilFirstUserAuthentication: Bool = false
    ) throws(TokenStoreError) {
        // A temporary file in the same directory, created `0600` (`O_CREAT | O_EXCL | O_NOFOLLOW`,
        // then `fchmod` so the umask cannot change it), written, `fsync`ed and renamed over the
        // target; then the directory is `fsync`ed. The data protection class is set before the rename.
        let directory = url.deletingLastPathComponent()
        let directoryFD = try openDirectory(directory, creating: true)
        defer { _ = close(directoryFD) }

        let targetName = url.lastPathComponent
        let targetPath = url.path
        try requireRegularOrAbsent(targetName, in: directoryFD, path: targetPath)
        let temporaryName = temporaryName(for: targetName)
        let temporaryPath = directory.appendingPathComponent(temporaryName).path
        let fd = openat(directoryFD, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
        if fd < 0 {
            throw Self.ioFailure(errno, "cannot create temporary file in \(directory.path)")
        }
        var isOpen = true
        do throws(TokenStoreError) {
            if fchmod(fd, fileMode) != 0 {
                throw Self.ioFailure(errno, "cannot set permissions of \(temporaryPath)")
            }
            #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
                if protectedUntilFirstUserAuthentication {
                    try protectUntilFirstUserAuthentication(temporaryPath)
                }
            #endif
            try writeAll(data, to: fd, path: temporaryPath)
            if synchronizing, durableSync(fd) != 0 {
                throw Self.ioFailure(errno, "cannot sync \(temporaryPath)")
            }
            isOpen = false
            if close(fd) != 0 {
                throw Self.ioFailure(errno, "cannot close \(temporaryPath)")
            }
            if renameat(directoryFD, temporaryName, directoryFD, targetName) != 0 {
                throw Self.ioFailure(errno, "cannot rename temporary file to \(targetPath)")
            }
        } catch {
            if isOpen { _ = close(fd) }
            _ = unlinkat(directoryFD, temporaryName, 0)
            throw error
        }
        if synchronizing {
            _ = durableSync(directoryFD)  // best effort: some file systems refuse it on a directory
        }
    }

    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        /// Gives the file at `path` the data protection class "complete until first user
        /// authentication".
        /// - Throws: `.io` if it cannot be set.
        private static func protectUntilFirstUserAuthentication(_ path: String) throws(TokenStoreError) {
            do {
                try FileManager.default.setAttributes(
                    [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path)
            } catch {
                throw .io("cannot set the data protection of \(path): \(error.localizedDescription)", underlyingError: error)
            }
        }
    #endif

    /// Overwrites `bytes` at `offset` in the existing file at `url` in place, and `fsync`s it; a
    /// file that does not exist is left so (nothing to overwrite).
    /// - Throws: `.io` if it cannot be opened (a symbolic link, not a regular file), written or
    ///   synchronised.
    static func overwrite(_ bytes: [UInt8], at offset: Int, in url: URL) throws(TokenStoreError) {
        let path = url.path
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return }
            throw openError(code, path: path)
        }
        defer { _ = close(fd) }
        _ = try regularFileSize(fd, path: path)
        let written = bytes.withUnsafeBytes { raw in pwrite(fd, raw.baseAddress, raw.count, off_t(offset)) }
        if written != bytes.count {
            throw Self.ioFailure(written < 0 ? errno : EIO, "cannot write \(path)")
        }
        if durableSync(fd) != 0 {
            throw Self.ioFailure(errno, "cannot sync \(path)")
        }
    }

    /// Opens (creating it `0600` if missing) the file `name` in `directory`, for an advisory
    /// lock: read-write, never through a symbolic link, and only if it is a regular file.
    /// - Returns: the descriptor; the caller closes it (which also releases any `flock`).
    /// - Throws: `.io` if the directory or the file cannot be opened or created, or the file is
    ///   not a regular file.
    static func openLockFile(named name: String, in directory: URL) throws(TokenStoreError) -> Int32 {
        let directoryFD = try openDirectory(directory, creating: true)
        defer { _ = close(directoryFD) }
        let path = directory.appendingPathComponent(name).path
        let fd = openat(directoryFD, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, fileMode)
        if fd < 0 {
            throw openError(errno, path: path)
        }
        do throws(TokenStoreError) {
            _ = try regularFileSize(fd, path: path)
        } catch {
            _ = close(fd)
            throw error
        }
        return fd
    }

    /// What ``prepareOwnDirectory(_:)`` found.
    enum DirectoryTrust: Equatable, Sendable {
        /// The folder was missing and is now created `0700`.
        case created
        /// The folder exists, belongs to this user, and nobody else may write to it.
        case trusted
        /// The folder belongs to this user but others could write to it: it is now `0700`, and
        /// nothing already in it can be trusted.
        case tightened
    }

    /// Makes sure `directory` is a folder only this user controls: creates it `0700` if missing,
    /// refuses one that another user owns, and removes the group's and others' write permission
    /// from one of this user's own.
    /// - Returns: what it found, and the folder's path with every symbolic link resolved: the
    ///   path to use from now on, so that a link retargeted later does not move the folder.
    /// - Throws: `.io` if it cannot be created, resolved or inspected, is not a directory, belongs
    ///   to another user, or cannot be tightened.
    static func prepareOwnDirectory(_ directory: URL) throws(TokenStoreError) -> (trust: DirectoryTrust, resolved: URL) {
        var created = false
        var status = stat()
        if stat(directory.path, &status) != 0 {
            guard errno == ENOENT else { throw Self.ioFailure(errno, "cannot inspect \(directory.path)") }
            let fd = try openDirectory(directory, creating: true)
            _ = close(fd)
            created = true
        }
        guard let resolvedPath = realpath(directory.path, nil) else { throw Self.ioFailure(errno, "cannot resolve \(directory.path)") }
        let path = String(cString: resolvedPath)
        free(resolvedPath)
        // `lstat`: the resolved path names the folder itself, never a link to it.
        guard lstat(path, &status) == 0 else { throw Self.ioFailure(errno, "cannot inspect \(path)") }
        let resolved = URL(fileURLWithPath: path, isDirectory: true)
        guard status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) else { throw .io("\(path) exists and is not a directory") }
        guard status.st_uid == geteuid() else {
            throw .io("\(path) belongs to another user (uid \(status.st_uid)); a cache folder must be this user's own")
        }
        try checkAncestors(of: path)
        guard status.st_mode & mode_t(0o022) != 0 else { return (created ? .created : .trusted, resolved) }
        if chmod(path, mode_t(directoryMode)) != 0 { throw Self.ioFailure(errno, "cannot restrict the permissions of \(path)") }
        return (created ? .created : .tightened, resolved)
    }

    /// Checks, as ssh's `StrictModes` does, that no other user can move `path` (resolved, no
    /// links) away and put a folder of theirs at its name: every folder above it belongs to
    /// root or this user, and none but a sticky one (`/tmp`) is writable by the group or others.
    /// - Throws: `.io` naming the first folder that fails, or one that cannot be inspected.
    private static func checkAncestors(of path: String) throws(TokenStoreError) {
        var ancestor = (path as NSString).deletingLastPathComponent
        while true {
            var status = stat()
            guard lstat(ancestor, &status) == 0 else { throw Self.ioFailure(errno, "cannot inspect \(ancestor)") }
            guard status.st_uid == 0 || status.st_uid == geteuid() else {
                throw .io("\(ancestor), above the folder, belongs to another user (uid \(status.st_uid)), who could replace the folder")
            }
            // 0o1000: the sticky bit, with which only a file's owner may rename or remove it.
            guard status.st_mode & mode_t(0o022) == 0 || status.st_mode & mode_t(0o1000) != 0 else {
                throw .io("\(ancestor), above the folder, is writable by other users, who could replace the folder")
            }
            if ancestor == "/" || ancestor.isEmpty { return }
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
    }

    /// Tries to take an exclusive `flock` on `fd` without waiting.
    /// - Returns: `false` if another open file description holds it (another process, or
    ///   another descriptor of this one: `flock` locks belong to open file descriptions).
    /// - Throws: `.io` for any other failure.
    static func tryLock(_ fd: Int32, path: String) throws(TokenStoreError) -> Bool {
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK || code == EAGAIN { return false }
            throw Self.ioFailure(code, "cannot lock \(path)")
        }
    }

    /// Deletes the file; a file that does not exist is not an error.
    /// - Throws: `.io` if it exists and cannot be deleted.
    static func removeFile(at url: URL) throws(TokenStoreError) {
        let path = url.path
        if unlink(path) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw Self.ioFailure(code, "cannot remove \(path)")
        }
        syncDirectory(url.deletingLastPathComponent())
    }

    // MARK: - Private

    private static func temporaryName(for targetName: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = (0..<8).map { _ in String(UInt8.random(in: .min ... .max, using: &generator), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }
            .joined()
        return ".\(targetName).\(suffix).tmp"
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(TokenStoreError) {
        let failure: Int32? = data.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    return code
                }
                offset += written
            }
            return nil
        }
        if let failure {
            throw Self.ioFailure(failure, "cannot write \(path)")
        }
    }

    /// A descriptor of `directory` (`O_DIRECTORY`), creating it `0700` (with any missing
    /// parents) first when `creating`.
    private static func openDirectory(_ directory: URL, creating: Bool) throws(TokenStoreError) -> Int32 {
        let path = directory.path
        var fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0, errno == ENOENT, creating {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: directoryMode]
                )
            } catch {
                throw .io("cannot create directory \(path): \(error.localizedDescription)", underlyingError: error)
            }
            fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        if fd < 0 {
            let code = errno
            if code == ENOTDIR { throw .io("\(path) exists and is not a directory") }
            throw Self.ioFailure(code, "cannot open directory \(path)")
        }
        return fd
    }

    /// Throws unless `name` in the directory is absent or a regular file (not followed if it
    /// is a symbolic link).
    private static func requireRegularOrAbsent(_ name: String, in directoryFD: Int32, path: String) throws(TokenStoreError) {
        var status = stat()
        if fstatat(directoryFD, name, &status, AT_SYMLINK_NOFOLLOW) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw Self.ioFailure(code, "cannot inspect \(path)")
        }
        if let kind = nonRegularKind(status.st_mode) {
            throw .io("\(path) is \(kind), not a regular file; refusing to replace it")
        }
    }

    /// The size of the open file, after checking it is a regular file.
    private static func regularFileSize(_ fd: Int32, path: String) throws(TokenStoreError) -> Int {
        var status = stat()
        if fstat(fd, &status) != 0 {
            throw Self.ioFailure(errno, "cannot inspect \(path)")
        }
        if let kind = nonRegularKind(status.st_mode) {
            throw .io("\(path) is \(kind), not a regular file")
        }
        return Int(status.st_size)
    }

    /// `nil` for a regular file, otherwise what it is, for an error message.
    private static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & mode_t(S_IFMT) {
        case mode_t(S_IFREG): nil
        case mode_t(S_IFLNK): "a symbolic link"
        case mode_t(S_IFDIR): "a directory"
        case mode_t(S_IFIFO): "a FIFO"
        case mode_t(S_IFSOCK): "a socket"
        case mode_t(S_IFCHR), mode_t(S_IFBLK): "a device"
        default: "not a regular file"
        }
    }

    /// `O_NONBLOCK` only kept `open` from waiting on a FIFO; reads of the regular file it
    /// turned out to be are plain blocking reads (it has no effect on regular files on Linux
    /// and Darwin, but it is cleared rather than relied on).
    private static func clearNonBlocking(_ fd: Int32, path: String) throws(TokenStoreError) {
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 {
            throw Self.ioFailure(errno, "cannot configure \(path)")
        }
    }

    /// The error for a failed `open` of the token file: `O_NOFOLLOW` reports a symbolic link as
    /// `ELOOP` (`EMLINK` on FreeBSD).
    private static func openError(_ code: Int32, path: String) -> TokenStoreError {
        if code == ELOOP || code == EMLINK {
            return .io("\(path) is a symbolic link, not a regular file")
        }
        return Self.ioFailure(code, "cannot open \(path)")
    }

    /// Makes an unlink durable. Best effort: some file systems refuse `fsync` on a directory,
    /// and the change itself has already happened.
    private static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = durableSync(fd)
        _ = close(fd)
    }

    private static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// ``TokenStoreError/io(_:underlyingError:)`` for a failed system call: the message, then the
    /// system's text for `code`; the `POSIXError` kept as the cause.
    static func ioFailure(_ code: Int32, _ message: String) -> TokenStoreError {
        .io("\(message): \(describe(code))", underlyingError: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
