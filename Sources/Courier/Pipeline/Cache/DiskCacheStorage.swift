import Foundation
import HTTPTypes

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
/// One storage at a time uses a folder; a storage that cannot lock it stores nothing and finds
/// nothing. A crash loses entries stored since the last index write, never serves a wrong one.
final class DiskCacheStorage: CacheStorage {
    // Every file is written with SecureFileIO.writeAtomically: `0600`, through a temporary file
    // renamed over the target, so a reader sees a whole file or none; on iOS, tvOS, watchOS and
    // visionOS with the data protection of the app's own data (complete until first user
    // authentication). Entry files are not `fsync`ed (a checksum catches a torn one; losing a cache
    // entry is harmless); the index is, when written.
    //
    // One storage at a time: each holds an exclusive `flock` on the folder's `lock` file for its
    // lifetime. A storage that cannot take it (another process, or another storage of this process,
    // has the folder) stores nothing and finds nothing, rather than corrupting the index.
    //
    // Crash safety comes from the order of writes and from checking on open and on read:
    // - an index says whether it was "clean" when written: every entry file then in the folder is
    //   one it names. Before the first entry file is written after that, the flag is cleared in
    //   place (and `fsync`ed);
    // - an entry file is written before the index names it: a crash between them leaves a file the
    //   index does not name, and an index that is not clean. Opening such an index lists the folder
    //   and deletes those files, the temporary files left by a crash mid-write, and the records
    //   whose file is missing. Opening a clean index does not list the folder;
    // - a removal deletes the file before the index forgets it;
    // - an entry file that is missing, truncated, corrupt or holds another key is a miss and is
    //   forgotten (and deleted) when read; an unreadable index empties the cache.
    //
    // The index is rewritten after every `indexWriteInterval` changes and on flush(), not on every
    // change: entries stored since the last write are lost by a crash (their files are deleted as
    // unknown on the next open), never served wrongly. Recency changes by lookups are kept in memory
    // and written with the next index write.
    //
    // Opening reads the index (and lists the folder after a crash); it never reads the entry files.
    // Lookups read the files of one URI only.

    /// The index file's name.
    static let indexName = "index"
    /// The lock file's name.
    static let lockName = "lock"
    /// The suffix of entry files.
    static let entrySuffix = ".entry"
    /// The largest index file read.
    static let maximumIndexSize = 256 * 1024 * 1024

    /// Where an entry is: its file (named by ``id``, a hash of its key) and the file's bytes.
    struct Record: Equatable, Sendable {
        var id: UInt64
        var size: Int

        /// The entry file's name: ``id`` in 16 lowercase hex digits, then `.entry`.
        var fileName: String { DiskCacheStorage.fileName(id: id) }
    }

    private struct State: Sendable {
        var records: [CacheStorageKey: Record] = [:]
        var keyOfFile: [UInt64: CacheStorageKey] = [:]
        var keysOfURL: [String: [CacheStorageKey]] = [:]
        var order = CacheLRUList<CacheStorageKey>()
        var totalSize = 0
        var unsavedChanges = 0
        /// Lookups changed the LRU order since the index was written.
        var recencyChanged = false
        /// The index on disk may say "clean": cleared before an entry file is written.
        var indexMayBeClean = true

        /// Adds `record` under `key`; `false` (nothing added) when the total would overflow.
        @discardableResult
        mutating func insert(_ key: CacheStorageKey, _ record: Record) -> Bool {
            let (total, overflow) = totalSize.addingReportingOverflow(record.size)
            guard !overflow, record.size >= 0 else { return false }
            records[key] = record
            keyOfFile[record.id] = key
            keysOfURL[key.key.url, default: []].append(key)
            order.touch(key)
            totalSize = total
            return true
        }

        @discardableResult
        mutating func forget(_ key: CacheStorageKey) -> Record? {
            guard let record = records.removeValue(forKey: key) else { return nil }
            keyOfFile[record.id] = nil
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
    /// Whether this storage has the folder's lock: without it, it stores and finds nothing.
    let isActive: Bool
    /// The descriptor holding the `flock`, closed (releasing it) on deinit.
    private let lockDescriptor: Int32?
    private let state: LockedState<State>

    /// Opens the cache in `directory` (created `0700` if missing) and locks it for this storage's
    /// lifetime; if another storage has it locked, this one is inactive: it stores nothing and
    /// finds nothing. After a crash (an index that is not clean), cleans what the crash left:
    /// temporary files, entry files the index does not name, index records whose file is missing.
    /// Entries of a credential partition (stored by an earlier process) are removed. An index that
    /// cannot be read (corrupt, truncated, of another version) empties the cache. Entries beyond
    /// `capacity` (a smaller bound than before) are evicted.
    ///
    /// With `distrustingContents` (a folder that others could write to until now), nothing in
    /// the folder is used: the index is not read, and every entry file is removed.
    init(directory: URL, capacity: Int, indexWriteInterval: Int = 64, distrustingContents: Bool = false) {
        self.directory = directory
        self.capacity = max(0, capacity)
        self.indexWriteInterval = max(1, indexWriteInterval)
        let lockDescriptor = try? SecureFileIO.openLockFile(named: Self.lockName, in: directory)
        let locked = lockDescriptor.map { fd in
            (try? SecureFileIO.tryLock(fd, path: directory.appendingPathComponent(Self.lockName).path)) == true
        }
        if let lockDescriptor, locked != true { _ = close(lockDescriptor) }
        self.lockDescriptor = locked == true ? lockDescriptor : nil
        isActive = locked == true
        guard isActive else {
            state = LockedState(State())
            return
        }
        state = LockedState(Self.openState(directory: directory, capacity: self.capacity, distrustingContents: distrustingContents))
        flush()
    }

    /// The state read from the index in `directory`, cleaned and bounded.
    private static func openState(directory: URL, capacity: Int, distrustingContents: Bool) -> State {
        var state = State()
        var needsWrite = distrustingContents
        let indexURL = directory.appendingPathComponent(Self.indexName)
        let indexData =
            distrustingContents ? nil : try? SecureFileIO.contents(of: indexURL, maximumSize: Self.maximumIndexSize, ownedByThisUser: true)
        let decoded = indexData.flatMap(CacheIndexCoding.decode)
        if indexData != nil, decoded == nil { needsWrite = true }
        // After a crash, the folder is listed: what a clean index names is all there is.
        var present: Set<UInt64>?
        if decoded?.isClean != true {
            var names = Set<UInt64>()
            for name in Self.fileNames(in: directory) {
                if name.hasPrefix("."), name.hasSuffix(".tmp") {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(name))
                } else if let id = Self.entryFileID(name) {
                    names.insert(id)
                }
            }
            present = names
            needsWrite = true
        }
        for id in decoded?.rejectedIDs ?? [] {
            if present == nil { try? SecureFileIO.removeFile(at: directory.appendingPathComponent(Self.fileName(id: id))) }
            needsWrite = true
        }
        let records = decoded?.records ?? []
        // The newest `CacheVariant.maximumStoredPerKey` variants of a key are kept (records are
        // least recently used first), as a store keeps them: an index of an earlier version, or
        // a crafted one, with thousands of variants of one URI does not make opening quadratic.
        var isOverflowingVariant = [Bool](repeating: false, count: records.count)
        var variantsOfKey: [CacheKey: Int] = [:]
        for index in records.indices.reversed() {
            let seen = variantsOfKey[records[index].0.key, default: 0]
            isOverflowingVariant[index] = seen >= CacheVariant.maximumStoredPerKey
            variantsOfKey[records[index].0.key] = seen + 1
        }
        state.records.reserveCapacity(records.count)
        state.keyOfFile.reserveCapacity(records.count)
        state.keysOfURL.reserveCapacity(records.count)
        state.order.reserveCapacity(records.count)
        for (index, (key, record)) in records.enumerated() {
            // A credential partition lives as long as its session in one process (see
            // `HTTPCache`): a previous process's credentialed entries can never be served again.
            // A record larger than the whole cache, or one that would overflow the total (a crafted
            // index), is dropped like any other bad record: it costs itself, not the cache.
            let kept =
                key.key.partition.isEmpty && !isOverflowingVariant[index] && (present?.contains(record.id) ?? true) && state.keyOfFile[record.id] == nil
                && state.records[key] == nil && record.size <= capacity && state.insert(key, record)
            if !kept {
                if present == nil, state.keyOfFile[record.id] == nil {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                }
                needsWrite = true
            }
        }
        for id in present ?? [] where state.keyOfFile[id] == nil {
            try? SecureFileIO.removeFile(at: directory.appendingPathComponent(Self.fileName(id: id)))
        }
        while state.totalSize > capacity, let oldest = state.order.leastRecentlyUsed {
            if let record = state.forget(oldest) {
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            }
            needsWrite = true
        }
        if needsWrite { state.unsavedChanges += 1 }
        state.indexMayBeClean = decoded?.isClean ?? false
        return state
    }

    /// The number of entries.
    var count: Int { state.withLock { $0.records.count } }

    /// The bytes of the entry files.
    var totalSize: Int { state.withLock { $0.totalSize } }

    /// The stored keys, least recently used first.
    var keysByRecency: [CacheStorageKey] { state.withLock { $0.order.keysInOrder } }

    /// The file name for `key`: a hash of it. Two keys with the same hash share the name; the
    /// second stored evicts the first, and the key inside the file tells them apart on read.
    static func fileName(for key: CacheStorageKey) -> String {
        fileName(id: fileID(for: key))
    }

    /// The hash of `key` that names its file.
    static func fileID(for key: CacheStorageKey) -> UInt64 {
        var writer = CacheBinaryWriter()
        writer.string(key.key.url)
        writer.string(key.key.partition)
        writer.variant(key.variant)
        return CacheBinaryWriter.checksum(writer.data)
    }

    /// `id` in 16 lowercase hex digits, then `.entry`.
    static func fileName(id: UInt64) -> String {
        let hex = String(id, radix: 16)
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

    /// The id of an entry file's name (16 lowercase hex digits, `.entry`), or `nil` for any other
    /// name.
    static func entryFileID(_ name: String) -> UInt64? {
        let bytes = Array(name.utf8)
        let suffix = Array(entrySuffix.utf8)
        guard bytes.count == 16 + suffix.count, bytes[16...].elementsEqual(suffix),
            bytes[..<16].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return UInt64(String(decoding: bytes[..<16], as: UTF8.self), radix: 16)
    }

    func entries(for key: CacheKey) -> [CacheEntry] {
        guard isActive else { return [] }
        return state.withLock { state in
            let keys = (state.keysOfURL[key.url] ?? []).filter { $0.key == key }
            var result: [CacheEntry] = []
            for storageKey in keys.reversed() {
                guard let record = state.records[storageKey] else { continue }
                let url = directory.appendingPathComponent(record.fileName)
                let data = try? SecureFileIO.contents(of: url, maximumSize: min(record.size, capacity), ownedByThisUser: true)
                guard let data, let entry = CacheEntryCoding.decode(data), entry.storageKey == storageKey else {
                    state.forget(storageKey)
                    try? SecureFileIO.removeFile(at: url)
                    noteChange(&state)
                    continue
                }
                state.order.touch(storageKey)
                state.recencyChanged = true
                result.append(entry)
            }
            return result
        }
    }

    @discardableResult
    func store(_ entry: CacheEntry, if sessionIsCurrent: () -> Bool) -> Bool {
        // What the decoders would refuse is never written: it would be a miss at best, and a
        // record the index decoder refuses at worst.
        guard isActive, let data = CacheEntryCoding.encodeIfReadable(entry) else { return false }
        let key = entry.storageKey
        let id = Self.fileID(for: key)
        let url = directory.appendingPathComponent(Self.fileName(id: id))
        return state.withLock { state in
            if let record = state.forget(key) {
                try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            }
            if let other = state.keyOfFile[id] { state.forget(other) }
            guard data.count <= capacity, sessionIsCurrent() else {
                noteChange(&state)
                return false
            }
            if let keys = state.keysOfURL[key.key.url], keys.count >= CacheVariant.maximumStoredPerKey {
                // Bounded variants of one key: the oldest goes (newest last).
                let variants = keys.filter { $0.key == key.key }
                for oldest in variants.prefix(max(0, variants.count + 1 - CacheVariant.maximumStoredPerKey)) {
                    if let record = state.forget(oldest) {
                        try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                    }
                }
            }
            while state.totalSize > capacity - data.count, let oldest = state.order.leastRecentlyUsed {
                if let record = state.forget(oldest) {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                }
            }
            do {
                if state.indexMayBeClean {
                    // A crash from here on may leave a file the index does not name: the next
                    // open must list the folder.
                    try SecureFileIO.overwrite(
                        CacheIndexCoding.notClean, at: CacheIndexCoding.cleanFlagOffset,
                        in: directory.appendingPathComponent(Self.indexName))
                    state.indexMayBeClean = false
                }
                try SecureFileIO.writeAtomically(data, to: url, synchronizing: false, protectedUntilFirstUserAuthentication: true)
            } catch {
                // A full disk, a folder that is not writable: not stored. The old file of this
                // name, if any, belongs to no record now and is removed.
                try? SecureFileIO.removeFile(at: url)
                noteChange(&state)
                return false
            }
            state.insert(key, Record(id: id, size: data.count))
            noteChange(&state)
            return true
        }
    }

    func remove(_ key: CacheStorageKey) {
        guard isActive else { return }
        state.withLock { state in
            guard let record = state.forget(key) else { return }
            try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
            noteChange(&state)
        }
    }

    func removeAll(url: String) {
        guard isActive else { return }
        state.withLock { state in
            for key in state.keysOfURL[url] ?? [] {
                if let record = state.forget(key) {
                    try? SecureFileIO.removeFile(at: directory.appendingPathComponent(record.fileName))
                }
            }
            noteChange(&state)
        }
    }

    func endPartition(_ partition: String) {
        guard isActive else { return }
        state.withLock { state in
            let keys = state.records.keys.filter { CachePartition.isWithin($0.key.partition, partition) }
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
        guard isActive else { return }
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
        guard isActive else { return }
        state.withLock { state in
            if state.unsavedChanges > 0 || state.recencyChanged { writeIndex(&state) }
        }
    }

    private func noteChange(_ state: inout State) {
        state.unsavedChanges += 1
        if state.unsavedChanges >= indexWriteInterval { writeIndex(&state) }
    }

    /// Writes the index, clean: it names every entry file in the folder. If that fails (a full
    /// disk), the entries stay usable in this process, and the next open sees the previous
    /// index (not clean, if an entry file was written since), cleaned against the folder.
    private func writeIndex(_ state: inout State) {
        let records = state.order.keysInOrder.compactMap { key in state.records[key].map { (key, $0) } }
        let data = CacheIndexCoding.encode(records, isClean: true)
        do {
            try SecureFileIO.writeAtomically(
                data, to: directory.appendingPathComponent(Self.indexName), protectedUntilFirstUserAuthentication: true)
            state.unsavedChanges = 0
            state.recencyChanged = false
            state.indexMayBeClean = true
        } catch {
            // Kept as unsaved: tried again at the next change or flush.
        }
    }

    deinit {
        flush()
        if let lockDescriptor { _ = close(lockDescriptor) }
    }
}

/// The binary form of a disk cache's index: its records, least recently used first, in
/// fixed-width rows, then one table of their keys. Big-endian.
///
///     "CCI" 0x02, u8 clean, u32 count,
///     count × (u64 file id, u64 size, u32 key offset, u32 key length),
///     u32 table length, table: per record (string url, string partition, variant),
///     u64 FNV-1a of everything before it but the clean byte
///
/// `clean` is 1 when every entry file in the folder is one the index names; it is left out of
/// the checksum so that it can be cleared in place (any other value is "not clean"). A file of
/// another version is not an index (`nil`): the cache opens empty.
enum CacheIndexCoding {
    static let magic: [UInt8] = [0x43, 0x43, 0x49, 0x02]  // "CCI", version 2
    /// Where the clean flag is.
    static let cleanFlagOffset = 4
    /// The clean flag's "not clean".
    static let notClean: [UInt8] = [0]
    /// The bytes of a row.
    static let rowSize = 24
    private static let headerSize = 9

    static func encode(_ records: [(CacheStorageKey, DiskCacheStorage.Record)], isClean: Bool) -> Data {
        var table = CacheBinaryWriter()
        var writer = CacheBinaryWriter()
        writer.data.reserveCapacity(headerSize + records.count * (rowSize + 80) + 12)
        writer.bytes(magic)
        writer.u8(isClean ? 1 : 0)
        writer.u32(UInt32(records.count))
        for (key, record) in records {
            let offset = table.data.count
            table.string(key.key.url)
            table.string(key.key.partition)
            table.variant(key.variant)
            writer.u64(record.id)
            writer.u64(UInt64(record.size))
            writer.u32(UInt32(offset))
            writer.u32(UInt32(table.data.count - offset))
        }
        writer.u32(UInt32(table.data.count))
        writer.data.append(table.data)
        var sum = CacheBinaryWriter.checksum(writer.data.prefix(cleanFlagOffset))
        sum = CacheBinaryWriter.checksum(writer.data.dropFirst(cleanFlagOffset + 1), continuing: sum)
        writer.u64(sum)
        return writer.data
    }

    /// What an index holds: its well-formed records, the file ids of the records that are not
    /// (their files are to be removed: a bad record costs itself, not the cache), and its clean
    /// flag.
    struct Decoded {
        var records: [(CacheStorageKey, DiskCacheStorage.Record)]
        var rejectedIDs: [UInt64]
        var isClean: Bool
    }

    /// What `data` holds, or `nil` if it is not one index of this version whose checksum and
    /// framing hold. A record whose key is malformed, or whose size is negative as an `Int`, is
    /// rejected alone.
    static func decode(_ data: Data) -> Decoded? {
        data.withUnsafeBytes { bytes in decode(bytes) }
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> Decoded? {
        guard bytes.count >= headerSize + 12, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)])
        var sum = CacheBinaryWriter.checksum(UnsafeRawBufferPointer(rebasing: body[..<cleanFlagOffset]))
        sum = CacheBinaryWriter.checksum(UnsafeRawBufferPointer(rebasing: body[(cleanFlagOffset + 1)...]), continuing: sum)
        guard sum == bigEndian(bytes, at: bytes.count - 8, as: UInt64.self) else { return nil }
        let count = Int(bigEndian(body, at: 5, as: UInt32.self))
        let tableStart = headerSize + count * rowSize + 4
        guard tableStart <= body.count,
            Int(bigEndian(body, at: tableStart - 4, as: UInt32.self)) == body.count - tableStart
        else { return nil }
        let table = UnsafeRawBufferPointer(rebasing: body[tableStart...])
        var decoded = Decoded(records: [], rejectedIDs: [], isClean: body[cleanFlagOffset] == 1)
        decoded.records.reserveCapacity(count)
        for index in 0..<count {
            let row = headerSize + index * rowSize
            let id = bigEndian(body, at: row, as: UInt64.self)
            let size = bigEndian(body, at: row + 8, as: UInt64.self)
            let offset = Int(bigEndian(body, at: row + 16, as: UInt32.self))
            let length = Int(bigEndian(body, at: row + 20, as: UInt32.self))
            guard size <= UInt64(Int.max), offset <= table.count, length <= table.count - offset else {
                decoded.rejectedIDs.append(id)
                continue
            }
            var reader = CacheRawReader(UnsafeRawBufferPointer(rebasing: table[offset..<(offset + length)]))
            guard let url = reader.string(), let partition = reader.string(), let variant = reader.variant(),
                reader.isAtEnd
            else {
                decoded.rejectedIDs.append(id)
                continue
            }
            let key = CacheStorageKey(key: CacheKey(url: url, partition: partition), variant: variant)
            decoded.records.append((key, DiskCacheStorage.Record(id: id, size: Int(size))))
        }
        return decoded
    }

    private static func bigEndian<Integer: FixedWidthInteger>(
        _ bytes: UnsafeRawBufferPointer, at offset: Int, as type: Integer.Type
    ) -> Integer {
        Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }
}
