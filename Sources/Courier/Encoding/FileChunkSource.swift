import Foundation

/// Reads one file in chunks of ``bodyChunkSize``, opened only when the first chunk is asked for,
/// and checks that it still holds exactly the bytes its size promised when the body was built.
///
/// A file that vanished, shrank or grew since then fails with
/// ``InvalidRequest/bodySourceFailed(_:underlyingError:)``: the `Content-Length` already announced would otherwise
/// be a lie, and the server would wait for bytes that never come or misread the next part.
struct FileChunkSource: ChunkSource {
    let url: URL
    let expectedSize: Int64
    private var handle: FileHandle?
    private var remaining: Int64
    private var closed = false

    init(url: URL, expectedSize: Int64) {
        self.url = url
        self.expectedSize = expectedSize
        self.remaining = expectedSize
    }

    /// The size of a regular file, without reading it.
    /// - Throws: ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` when it is missing, not a regular file,
    ///   or not readable.
    static func size(of url: URL) throws(CourierError) -> Int64 {
        guard url.isFileURL else {
            throw .invalidRequest(.bodySourceFailed("\(url.redactedForLogging) is not a file URL"))
        }
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .invalidRequest(.bodySourceFailed("cannot read the file \(Self.name(url)): it does not exist or is not accessible"))
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else {
            throw .invalidRequest(.bodySourceFailed("\(Self.name(url)) is not a regular file"))
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .invalidRequest(.bodySourceFailed("the file \(Self.name(url)) is not readable"))
        }
        return size
    }

    /// The file's last path component: enough to find it, without the user's directory layout.
    static func name(_ url: URL) -> String {
        url.lastPathComponent.debugDescription
    }

    mutating func next() async throws(CourierError) -> Data? {
        guard !closed else { return nil }
        if handle == nil {
            do {
                handle = try FileHandle(forReadingFrom: url)
            } catch {
                closed = true
                throw .invalidRequest(.bodySourceFailed("the file \(Self.name(url)) could not be opened while the body was sent"))
            }
        }
        guard let handle else { return nil }
        do {
            if remaining == 0 {
                // The promised bytes are all sent; anything more means the file grew.
                let extra = try handle.read(upToCount: 1) ?? Data()
                close()
                guard extra.isEmpty else {
                    throw CourierError.invalidRequest(
                        .bodySourceFailed(
                            "the file \(Self.name(url)) grew while it was sent (it had \(expectedSize) bytes)"))
                }
                return nil
            }
            let chunk = try handle.read(upToCount: Int(min(Int64(bodyChunkSize), remaining))) ?? Data()
            guard !chunk.isEmpty else {
                close()
                throw CourierError.invalidRequest(
                    .bodySourceFailed(
                        "the file \(Self.name(url)) shrank while it was sent: \(expectedSize - remaining) of \(expectedSize) bytes were there"))
            }
            remaining -= Int64(chunk.count)
            return chunk
        } catch let error as CourierError {
            throw error
        } catch {
            close()
            throw .invalidRequest(
                .bodySourceFailed("reading the file \(Self.name(url)) failed: \(error.localizedDescription)", underlyingError: error))
        }
    }

    private mutating func close() {
        closed = true
        try? handle?.close()
        handle = nil
    }
}
