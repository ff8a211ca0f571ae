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

/// Small POSIX helpers for a secret-holding file: read it whole, replace it atomically with a
/// file that is `0600` from the moment it exists, remove it.
///
/// Foundation's `Data.write(to:options: .atomic)` creates its temporary file with the default
/// mode and changes it afterwards, and does not `fsync`; these helpers do neither.
enum SecureFileIO {
    /// Permissions of the file: read and write for the owner only.
    static let fileMode: mode_t = 0o600
    /// Permissions of a parent directory this code creates: owner only.
    static let directoryMode: Int = 0o700

    /// The file's whole contents, or `nil` if it does not exist.
    /// - Throws: `.io` if it cannot be opened or read, `.corrupted` if it is larger than `maximumSize`.
    static func contents(of url: URL, maximumSize: Int) throws(TokenStoreError) -> Data? {
        let path = url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw .io("cannot open \(path): \(describe(code))")
        }
        defer { _ = close(fd) }

        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress, raw.count)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .io("cannot read \(path): \(describe(code))")
            }
            if count == 0 { return contents }
            contents.append(contentsOf: buffer[0..<count])
            if contents.count > maximumSize {
                throw .corrupted("file is larger than \(maximumSize) bytes")
            }
        }
    }

    /// Replaces the file at `url` with `data` atomically: a temporary file in the same directory,
    /// created `0600` (`O_CREAT | O_EXCL`, then `fchmod` so the umask cannot change it), written,
    /// `fsync`ed and renamed over the target; then the directory is `fsync`ed. A reader sees the
    /// old file or the new one, never a part. The parent directory is created `0700` if missing.
    /// - Throws: `.io` naming the step that failed; the temporary file is removed.
    static func writeAtomically(_ data: Data, to url: URL) throws(TokenStoreError) {
        let directory = url.deletingLastPathComponent()
        try createDirectoryIfMissing(directory)

        let targetPath = url.path
        let temporaryPath = directory.appendingPathComponent(temporaryName(for: url.lastPathComponent)).path
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if fd < 0 {
            throw .io("cannot create temporary file in \(directory.path): \(describe(errno))")
        }
        var isOpen = true
        do throws(TokenStoreError) {
            if fchmod(fd, fileMode) != 0 {
                throw .io("cannot set permissions of \(temporaryPath): \(describe(errno))")
            }
            try writeAll(data, to: fd, path: temporaryPath)
            if fsync(fd) != 0 {
                throw .io("cannot sync \(temporaryPath): \(describe(errno))")
            }
            isOpen = false
            if close(fd) != 0 {
                throw .io("cannot close \(temporaryPath): \(describe(errno))")
            }
            if rename(temporaryPath, targetPath) != 0 {
                throw .io("cannot rename temporary file to \(targetPath): \(describe(errno))")
            }
        } catch {
            if isOpen { _ = close(fd) }
            _ = unlink(temporaryPath)
            throw error
        }
        syncDirectory(directory)
    }

    /// Deletes the file; a file that does not exist is not an error.
    /// - Throws: `.io` if it exists and cannot be deleted.
    static func removeFile(at url: URL) throws(TokenStoreError) {
        let path = url.path
        if unlink(path) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw .io("cannot remove \(path): \(describe(code))")
        }
        syncDirectory(url.deletingLastPathComponent())
    }

    /// Whether `name` is the name of a temporary file made for a target called `targetName`.
    static func isTemporaryName(_ name: String, for targetName: String) -> Bool {
        name.hasPrefix(".\(targetName).") && name.hasSuffix(".tmp")
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
            throw .io("cannot write \(path): \(describe(failure))")
        }
    }

    private static func createDirectoryIfMissing(_ directory: URL) throws(TokenStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw .io("\(directory.path) exists and is not a directory")
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: directoryMode]
            )
        } catch {
            throw .io("cannot create directory \(directory.path): \(error.localizedDescription)")
        }
    }

    /// Makes a rename or unlink durable. Best effort: some file systems refuse `fsync` on a
    /// directory, and the change itself has already happened.
    private static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    private static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
