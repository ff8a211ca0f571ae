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

/// An anonymous temporary file that holds the bytes a slow reader has not taken yet, when the
/// transfer cannot be paused (corelibs URLSession on Linux, see ``ChunkBuffer``).
///
/// Created `0600` with `O_EXCL` and unlinked at once, so no other process can open it by name and
/// nothing is left behind when the process dies. Bytes are written at the end and read from the
/// front, in order; once everything written has been read, the file is emptied and reused.
///
/// Not thread-safe on its own: ``ChunkBuffer`` calls it under its lock.
final class SpillFile {
    private let descriptor: Int32
    private var writeOffset: Int64 = 0
    private var readOffset: Int64 = 0

    /// Bytes written and not yet read.
    var unread: Int { Int(writeOffset - readOffset) }

    /// Creates the file in the temporary directory.
    /// - Throws: ``CourierError/transport(_:)`` when no file can be created.
    init() throws(CourierError) {
        let directory = FileManager.default.temporaryDirectory.path
        for _ in 0..<4 {
            let path = directory + "/courier-body-" + UUID().uuidString
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                unlink(path)
                descriptor = fd
                return
            }
            guard errno == EEXIST else { break }
        }
        throw Self.failure("could not create a temporary file to buffer the response body (errno \(errno))")
    }

    deinit {
        close(descriptor)
    }

    /// Appends `data`.
    /// - Throws: ``CourierError/transport(_:)`` when the disk refuses it (full, say).
    func append(_ data: Data) throws(CourierError) {
        let failed: Int32? = data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(writeOffset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return nil
        }
        if let failed { throw Self.failure("could not buffer the response body on disk (errno \(failed))") }
        writeOffset += Int64(data.count)
    }

    /// Reads up to `limit` of the oldest unread bytes; `nil` when there are none.
    /// - Throws: ``CourierError/transport(_:)`` when the file cannot be read back.
    func read(upTo limit: Int) throws(CourierError) -> Data? {
        let count = min(limit, unread)
        guard count > 0 else { return nil }
        var data = Data(count: count)
        let failed: Int32? = data.withUnsafeMutableBytes { bytes in
            var done = 0
            while done < count {
                let read = pread(descriptor, bytes.baseAddress! + done, count - done, off_t(readOffset) + off_t(done))
                if read < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if read == 0 { return EIO }
                done += read
            }
            return nil
        }
        if let failed { throw Self.failure("could not read the buffered response body back (errno \(failed))") }
        readOffset += Int64(count)
        if readOffset == writeOffset {
            // All read: start over at the front, and give the disk space back.
            readOffset = 0
            writeOffset = 0
            _ = ftruncate(descriptor, 0)
        }
        return data
    }

    private static func failure(_ message: String) -> CourierError {
        .transport(TransportFailure(kind: .other, message: message))
    }
}
