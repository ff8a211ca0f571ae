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

/// Cache entries in a folder the app names: one file per entry (``CacheEntryCoding``) and one
/// index file (``CacheIndexCoding``) listing them in LRU order, bounded by the bytes of the entry
/// files, least recently used evicted first.
///
/// Every file is written with ``SecureFileIO/writeAtomically(_:to:synchronizing:)``: `0600`,
/// through a temporary file renamed over the target, so a reader sees a whole file or none.
/// Entry files are not `fsync`ed (a checksum catches a torn one; losing a cache entry is
/// harmless); the index is, when written.
///
/// Crash safety comes from the order of writes and from checking on open and on read:
/// - an entry file is written before the index names it: a crash between them leaves a file the
///   index does not name, deleted on the next open;
/// - a removal deletes the file before the index forgets it: an index naming a missing file is
///   cleaned on open (the folder's listing is read anyway);
/// - a temporary file left by a crash mid-write is deleted on open;
/// - an entry file that is truncated, corrupt or holds another key is a miss and is deleted when
///   read; an unreadable index empties the cache.
///
/// The index is rewritten after every ``indexWriteInterval`` changes and on ``flush()``, not on
/// every change: entries stored since the last write are lost by a crash (their files are
/// deleted as unknown on the next open), never served wrongly. Recency changes by lookups are
/// kept in memory and written with the next index write.
///
/// Opening reads the index and lists the folder; it never reads the entry files. Lookups read
/// the files of one URI only.
final class DiskCacheStorage: CacheStorage {
    /// The index file's name.
    static let indexName = "index"
    /// The suffix of entry files.
    static let entrySuffix = ".entry"
    /// The largest index file read.
    static let maximumIndexSize = 256 * 1024 * 1024

    struct Record: Equatable, Sendable {
        var fileName: String
        var size: Int
    }

    private struct State: Sendable {
        var records: [CacheStorageKey: Record] = [:]
        var keyOfFile: [String: CacheStorageKey] = [:]
        var keysOfURL: [String: [CacheStorageKey]] = [:]
        var order = CacheLRUList<CacheStorageKey>()
        var totalSize = 0
        var unsavedChanges = 0
        /// Lookups changed the LRU order since the index was written.
        var recencyChanged = false

        mutating func insert(_ key: CacheStorageKey, _ record: Record) {
            records[key] = record
            keyOfFile[record.fileName] = key
            keysOfURL[key.key.url, default: []].append(key)
            order.touch(key)
            totalSize += record.size
        }

        @discardableResult
        mutating func forget(_ key: CacheStorageKey) -> Record? {
            guard let record = records.removeValue(forKey: key) else { return nil }
            keyOfFile[record.fileName] = nil
            keysOfURL[key.key.url]?.removeAll { $0 == key }
            if keysOfURL[key.key.url]?.isEmpty == true { keysOfURL[key.key.url] = nil }
            order.remove(key)
            totalSize -= record.size
            return record
        }
    }

    /// The folder.
    let directory: URL
    /// The bound, in bytes of entry files.
    let capacity: Int
    /// Changes after which the index is rewritten.
    let indexWriteInterval: Int
    private let state: LockedState<State>

    /// Opens the cache in `directory` (created `0700` when first written), cleaning what a crash
    /// left: temporary files, entry files the index does not name, index records whose file is
    /// missing. Entries of a credential partition (stored by an earlier process) are removed. An index that cannot be read (corrupt, truncated, of another version) empties
    /// the cache. Entries beyond `capacity` (a smaller bound than before) are evicted.
    init(directory: URL, capacity: Int, indexWriteInterval: Int = 64) {
        self.directory = directory
        self.capacity = max(0, capacity)
        self.indexWriteInterval = max(1, indexWriteInterval)
        var state = State()
        var needsWrite = false
        let indexURL = directory.appendingPathComponent(Self.indexName)
        let indexData = try? SecureFileIO.contents(of: indexURL, maximumSize: Self.maximumIndexSize)
        let decoded = indexData.flatMap(CacheIndexCoding.decode)
        if indexData != nil, decoded == nil { needsWrite = true }
        let names = Self.fileNames(in: directory)
        var present = Set<String>()
        for name in names {
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(name))
            } else if name.hasSuffix(Self.entrySuffix) {
                present.insert(name)
            }
        }
        let count = decoded?.count ?? 0
        state.records.reserveCapacity(count)
        state.keyOfFile.reserveCapacity(count)
        state.keysOfURL.reserveCapacity(count)
        state.order.reserveCapacity(count)
        for (key, record) in decoded ?? [] {
            // A credential partition lives as long as its session in one process (see
            // `HTTPCache`): a previous process's credentialed entries can never be served again.
            if key.key.partition.isEmpty, present.contains(record.fileName), state.keyOfFile[record.fileName] == nil,
                state.records[key] == nil
            {
                state.insert(key, record)
            } else {
                needsWrite = true
            }
        }
        for name in present where state.keyOfFile[name] == nil {
            try? SecureFileIO.removeFile(at: directory.appendingPathComponent(name))
        }
        while state.totalSize > self.capacity, let oldest = state.order.leastRecentlyUsed {
            if let record = state.forget(oldest) {
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            }
            needsWrite = true
        }
        if needsWrite { state.unsavedChanges += 1 }
        self.state = LockedState(state)
        flush()
    }

    /// The bytes of the entry files.
    var totalSize: Int { state.withLock { $0.totalSize } }

    /// The stored keys, least recently used first.
    var keysByRecency: [CacheStorageKey] { state.withLock { $0.order.keysInOrder } }

    /// The file name for `key`: a hash of it. Two keys with the same hash share the name; the
    /// second stored evicts the first, and the key inside the file tells them apart on read.
    static func fileName(for key: CacheStorageKey) -> String {
        var writer = CacheBinaryWriter()
        writer.string(key.key.url)
        writer.string(key.key.partition)
        writer.variant(key.variant)
        let hash = CacheBinaryWriter.checksum(writer.data)
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + entrySuffix
    }

    /// The names in `directory` (`readdir`: several times faster than `FileManager` on Linux
    /// for thousands of files); empty if it cannot be read.
    static func fileNames(in directory: URL) -> [String] {
        guard let stream = opendir(directory.path) else { return [] }
        defer { closedir(stream) }
        // The name is read in place, up to its NUL. Copying `entry.pointee.d_name` would read
        // the whole 256-byte array, past the end of a short record (AddressSanitizer reports it).
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `name` has the form of an entry file's name: 16 lowercase hex digits, `.entry`.
    static func isEntryFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let suffix = Array(entrySuffix.utf8)
        guard bytes.count == 16 + suffix.count, bytes[16...].elementsEqual(suffix) else { return false }
        return bytes[..<16].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    func entries(for key: CacheKey) -> [CacheEntry] {
        state.withLock { state in
            let keys = (state.keysOfURL[key.url] ?? []).filter { $0.key == key }
            var result: [CacheEntry] = []
            for storageKey in keys.reversed() {
                guard let record = state.records[storageKey] else { continue }
                let url = directory.appendingPathComponent(record.fileName)
                let data = try? SecureFileIO.contents(of: url, maximumSize: max(record.size, capacity))
                guard let data, let entry = CacheEntryCoding.decode(data), entry.storageKey == storageKey else {
                    state.forget(storageKey)
                    try? SecureFileIO.removeFile(at: url)
                    noteChange(&state)
                    continue
                }
                if data.count != record.size {
                    state.totalSize += data.count - record.size
                    state.records[storageKey]?.size = data.count
                }
                state.order.touch(storageKey)
                state.recencyChanged = true
                result.append(entry)
            }
            return result
        }
    }

    @discardableResult
    func store(_ entry: CacheEntry) -> Bool {
        let key = entry.storageKey
        let data = CacheEntryCoding.encode(entry)
        let fileName = Self.fileName(for: key)
        return state.withLock { state in
            if let record = state.forget(key) {
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            }
            if let other = state.keyOfFile[fileName] { state.forget(other) }
            guard data.count <= capacity else {
                noteChange(&state)
                return false
            }
            while state.totalSize + data.count > capacity, let oldest = state.order.leastRecentlyUsed {
                if let record = state.forget(oldest) {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                }
            }
            do {
                try SecureFileIO.writeAtomically(
                    data, to: directory.appendingPathComponent(fileName), synchronizing: false)
            } catch {
                // A full disk, a folder that is not writable: not stored. The old file of this
                // name, if any, belongs to no record now and is removed.
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(fileName))
                noteChange(&state)
                return false
            }
            state.insert(key, Record(fileName: fileName, size: data.count))
            noteChange(&state)
            return true
        }
    }

    func remove(_ key: CacheStorageKey) {
        state.withLock { state in
            guard let record = state.forget(key) else { return }
            try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            noteChange(&state)
        }
    }

    func removeAll(url: String) {
        state.withLock { state in
            for key in state.keysOfURL[url] ?? [] {
                if let record = state.forget(key) {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                }
            }
            noteChange(&state)
        }
    }

    func removeAll(partition: String) {
        state.withLock { state in
            let keys = state.records.keys.filter { $0.key.partition == partition }
            guard !keys.isEmpty else { return }
            for key in keys {
                if let record = state.forget(key) {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                }
            }
            writeIndex(&state)
        }
    }

    func removeAll() {
        state.withLock { state in
            for record in state.records.values {
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            }
            state = State()
            writeIndex(&state)
        }
    }

    /// Writes the index now if anything, recency included, changed since it was last written.
    func flush() {
        state.withLock { state in
            if state.unsavedChanges > 0 || state.recencyChanged { writeIndex(&state) }
        }
    }

    private func noteChange(_ state: inout State) {
        state.unsavedChanges += 1
        if state.unsavedChanges >= indexWriteInterval { writeIndex(&state) }
    }

    /// Writes the index. If that fails (a full disk), the entries stay usable in this process,
    /// and the next open sees the previous index, cleaned against the folder.
    private func writeIndex(_ state: inout State) {
        let records = state.order.keysInOrder.compactMap { key in state.records[key].map { (key, $0) } }
        let data = CacheIndexCoding.encode(records)
        do {
            try SecureFileIO.writeAtomically(data, to: directory.appendingPathComponent(Self.indexName))
            state.unsavedChanges = 0
            state.recencyChanged = false
        } catch {
            // Kept as unsaved: tried again at the next change or flush.
        }
    }

    deinit {
        flush()
    }
}

/// The binary form of a disk cache's index: its records, least recently used first.
///
///     "CCI" 0x01, u32 count,
///     count × (string fileName, string url, string partition, variant, u64 size),
///     u64 FNV-1a of everything before it
enum CacheIndexCoding {
    static let magic: [UInt8] = [0x43, 0x43, 0x49, 0x01]  // "CCI", version 1

    static func encode(_ records: [(CacheStorageKey, DiskCacheStorage.Record)]) -> Data {
        var writer = CacheBinaryWriter()
        writer.bytes(magic)
        writer.u32(UInt32(records.count))
        for (key, record) in records {
            writer.string(record.fileName)
            writer.string(key.key.url)
            writer.string(key.key.partition)
            writer.variant(key.variant)
            writer.u64(UInt64(record.size))
        }
        writer.u64(CacheBinaryWriter.checksum(writer.data))
        return writer.data
    }

    /// The records in `data`, or `nil` if it is not exactly one well-formed index. File names
    /// must have the form ``DiskCacheStorage/fileName(for:)`` gives (16 lowercase hex digits and
    /// `.entry`): an index cannot send a read or a deletion outside the folder. (That the name
    /// is the one of its key is not checked here, to keep opening cheap: a file holding another
    /// key is a miss when read.)
    static func decode(_ data: Data) -> [(CacheStorageKey, DiskCacheStorage.Record)]? {
        guard data.count >= magic.count + 12 else { return nil }
        let checked = data.prefix(data.count - 8)
        var reader = CacheBinaryReader(data)
        guard reader.bytes(magic.count) == magic, let count = reader.u32() else { return nil }
        var records: [(CacheStorageKey, DiskCacheStorage.Record)] = []
        for _ in 0..<count {
            guard let fileName = reader.string(), let url = reader.string(), let partition = reader.string(),
                let variant = reader.variant(), let size = reader.u64(), size <= UInt64(Int.max / 2)
            else { return nil }
            let key = CacheStorageKey(key: CacheKey(url: url, partition: partition), variant: variant)
            guard DiskCacheStorage.isEntryFileName(fileName) else { return nil }
            records.append((key, DiskCacheStorage.Record(fileName: fileName, size: Int(size))))
        }
        guard reader.offset == checked.count, let sum = reader.u64(), reader.isAtEnd,
            sum == CacheBinaryWriter.checksum(checked)
        else { return nil }
        return records
    }
}
