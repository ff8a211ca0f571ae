import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Disk cache storage: files, index, restarts and crashes")
struct DiskCacheStorageTests {
    private func entry(_ path: String, bytes: Int = 100, partition: String = "") -> CacheEntry {
        cacheEntry(path: path, partition: partition, body: String(repeating: "x", count: bytes))
    }

    private func files(in directory: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    }

    @Test("entries and their LRU order survive a restart")
    func restart() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = ["/1", "/2", "/3"].map { entry($0) }
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            for entry in entries { #expect(storage.store(entry)) }
            _ = storage.entries(for: entries[0].key)
            storage.flush()
        }
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.keysByRecency.map(\.key.url) == ["/2", "/3", "/1"].map { "https://example.com\($0)" })
        #expect(reopened.entries(for: entries[1].key) == [entries[1]])
        #expect(reopened.totalSize == entries.map { CacheEntryCoding.encode($0).count }.reduce(0, +))
    }

    @Test("the index is written without an explicit flush once the storage is released")
    func writtenOnRelease() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stored = entry("/a")
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(stored)
        }
        #expect(DiskCacheStorage(directory: directory, capacity: 100_000).entries(for: stored.key) == [stored])
    }

    @Test("entry files, the index and the lock file are 0600, the folder 0700")
    func permissions() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
        storage.store(entry("/a"))
        storage.flush()
        let names = files(in: directory)
        #expect(names == [DiskCacheStorage.indexName, DiskCacheStorage.lockName, DiskCacheStorage.fileName(for: entry("/a").storageKey)])
        for name in names {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(name)")
        }
        let folder = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    /// The folder as a crash of `storage`'s process would leave it now: its files copied to a
    /// new folder (the storage keeps the lock of its own).
    private func crashImage(of directory: URL) throws -> URL {
        let image = cacheTemporaryDirectory()
        try FileManager.default.createDirectory(at: image, withIntermediateDirectories: true)
        for name in files(in: directory) where name != DiskCacheStorage.lockName {
            try FileManager.default.copyItem(at: directory.appendingPathComponent(name), to: image.appendingPathComponent(name))
        }
        return image
    }

    @Test("a crash after storing: entry files the index does not name, temporary files and missing files are cleaned on open")
    func crashLeftovers() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = entry("/kept")
        let lost = entry("/lost")
        let orphan = entry("/orphan")
        let storage = DiskCacheStorage(directory: directory, capacity: 100_000, indexWriteInterval: 100)
        storage.store(kept)
        storage.store(lost)
        storage.flush()
        storage.store(orphan)
        let image = try crashImage(of: directory)
        defer { try? FileManager.default.removeItem(at: image) }
        let orphanName = DiskCacheStorage.fileName(for: orphan.storageKey)
        try Data("half".utf8).write(to: image.appendingPathComponent(".\(orphanName).0123456789abcdef.tmp"))
        try FileManager.default.removeItem(at: image.appendingPathComponent(DiskCacheStorage.fileName(for: lost.storageKey)))

        let reopened = DiskCacheStorage(directory: image, capacity: 100_000)
        #expect(reopened.keysByRecency == [kept.storageKey])
        #expect(reopened.totalSize == CacheEntryCoding.encode(kept).count)
        #expect(
            files(in: image) == [DiskCacheStorage.indexName, DiskCacheStorage.lockName, DiskCacheStorage.fileName(for: kept.storageKey)])
        #expect(reopened.entries(for: orphan.key).isEmpty)
        #expect(reopened.entries(for: kept.key) == [kept])
    }

    @Test("a cleanly written index opens without listing the folder: a file it does not name is left alone")
    func cleanIndexSkipsListing() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = entry("/kept")
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(kept)
        }
        let strayName = DiskCacheStorage.fileName(for: entry("/stray").storageKey)
        try CacheEntryCoding.encode(entry("/stray")).write(to: directory.appendingPathComponent(strayName))
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(files(in: directory).contains(strayName))
        #expect(reopened.keysByRecency == [kept.storageKey])
        #expect(reopened.entries(for: entry("/stray").key).isEmpty)
    }

    @Test("storing after the index was written clears its clean flag in place before the entry file exists")
    func storingClearsCleanFlag() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let indexURL = directory.appendingPathComponent(DiskCacheStorage.indexName)
        let storage = DiskCacheStorage(directory: directory, capacity: 100_000, indexWriteInterval: 100)
        storage.store(entry("/a"))
        storage.flush()
        let clean = try Data(contentsOf: indexURL)
        #expect(clean[CacheIndexCoding.cleanFlagOffset] == 1)
        #expect(CacheIndexCoding.decode(clean)?.isClean == true)
        storage.store(entry("/b"))
        let marked = try Data(contentsOf: indexURL)
        #expect(marked[CacheIndexCoding.cleanFlagOffset] == 0)
        #expect(CacheIndexCoding.decode(marked)?.isClean == false)
        #expect(CacheIndexCoding.decode(marked)?.records.map(\.0) == [entry("/a").storageKey])
        storage.flush()
        #expect(CacheIndexCoding.decode(try Data(contentsOf: indexURL))?.isClean == true)
    }

    @Test("an index naming a missing file: after a clean shutdown, the record is dropped on its first read")
    func missingFile() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lost = entry("/lost")
        let kept = entry("/kept")
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(lost)
            storage.store(kept)
            storage.flush()
        }
        try FileManager.default.removeItem(at: directory.appendingPathComponent(DiskCacheStorage.fileName(for: lost.storageKey)))
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.entries(for: lost.key).isEmpty)
        #expect(reopened.keysByRecency == [kept.storageKey])
        #expect(reopened.totalSize == CacheEntryCoding.encode(kept).count)
    }

    @Test("an index of the previous format reads as corrupt: the cache opens empty and deletes the old files")
    func previousFormat() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = entry("/old")
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(old)
        }
        // Version 1: "CCI" 0x01, u32 count, (string fileName, string url, string partition, variant, u64 size).
        var writer = CacheBinaryWriter()
        writer.bytes([0x43, 0x43, 0x49, 0x01])
        writer.u32(1)
        writer.string(DiskCacheStorage.fileName(for: old.storageKey))
        writer.string(old.key.url)
        writer.string("")
        writer.variant(.none)
        writer.u64(UInt64(CacheEntryCoding.encode(old).count))
        writer.u64(CacheBinaryWriter.checksum(writer.data))
        try writer.data.write(to: directory.appendingPathComponent(DiskCacheStorage.indexName))
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.count == 0)
        #expect(reopened.entries(for: old.key).isEmpty)
        #expect(files(in: directory) == [DiskCacheStorage.indexName, DiskCacheStorage.lockName])
    }

    @Test("a second storage on a folder in use stores and finds nothing, and leaves the first's index intact")
    func oneStoragePerFolder() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(first.isActive)
        #expect(first.store(entry("/a")))
        first.flush()
        let index = try Data(contentsOf: directory.appendingPathComponent(DiskCacheStorage.indexName))
        do {
            let second = DiskCacheStorage(directory: directory, capacity: 100_000)
            #expect(!second.isActive)
            #expect(second.entries(for: entry("/a").key).isEmpty)
            #expect(!second.store(entry("/b")))
            second.remove(entry("/a").storageKey)
            second.removeAll()
            second.flush()
        }
        #expect(try Data(contentsOf: directory.appendingPathComponent(DiskCacheStorage.indexName)) == index)
        #expect(first.entries(for: entry("/a").key) == [entry("/a")])
        #expect(!files(in: directory).contains(DiskCacheStorage.fileName(for: entry("/b").storageKey)))
    }

    @Test("the folder's lock is released with the storage: the next storage opens it normally")
    func lockReleased() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(entry("/a"))
        }
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.isActive)
        #expect(reopened.entries(for: entry("/a").key) == [entry("/a")])
    }

    @Test("a truncated, corrupt or swapped entry file is a miss, and is deleted")
    func damagedEntryFiles() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
        let truncated = entry("/truncated")
        let corrupt = entry("/corrupt")
        let swapped = entry("/swapped")
        let other = entry("/other")
        for entry in [truncated, corrupt, swapped, other] { storage.store(entry) }
        func url(_ entry: CacheEntry) -> URL { directory.appendingPathComponent(DiskCacheStorage.fileName(for: entry.storageKey)) }

        let data = try Data(contentsOf: url(truncated))
        try data.prefix(data.count - 3).write(to: url(truncated))
        var bytes = try Data(contentsOf: url(corrupt))
        bytes[bytes.count - 20] ^= 0xFF
        try bytes.write(to: url(corrupt))
        try Data(contentsOf: url(other)).write(to: url(swapped))

        #expect(storage.entries(for: truncated.key).isEmpty)
        #expect(storage.entries(for: corrupt.key).isEmpty)
        #expect(storage.entries(for: swapped.key).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: url(truncated).path))
        #expect(!FileManager.default.fileExists(atPath: url(corrupt).path))
        #expect(storage.keysByRecency == [other.storageKey])
        #expect(storage.entries(for: other.key) == [other])
    }

    @Test("a corrupt index empties the cache and deletes its files; the cache works on")
    func corruptIndex() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stored = entry("/a")
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(stored)
            storage.flush()
        }
        let indexURL = directory.appendingPathComponent(DiskCacheStorage.indexName)
        var index = try Data(contentsOf: indexURL)
        index[index.count / 2] ^= 0x55
        try index.write(to: indexURL)
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.entries(for: stored.key).isEmpty)
        #expect(files(in: directory) == [DiskCacheStorage.indexName, DiskCacheStorage.lockName])
        #expect(reopened.store(stored))
        #expect(reopened.entries(for: stored.key) == [stored])
    }

    @Test("the files' bytes never exceed the capacity; LRU evicts, also on reopening with a smaller bound")
    func byteBound() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = CacheEntryCoding.encode(entry("/0")).count
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: size * 4)
            for index in 0..<10 {
                storage.store(entry("/\(index)"))
                #expect(storage.totalSize <= size * 4)
            }
            #expect(storage.keysByRecency.map(\.key.url) == (6..<10).map { "https://example.com/\($0)" })
            #expect(files(in: directory).filter { $0.hasSuffix(DiskCacheStorage.entrySuffix) }.count == 4)
            #expect(!storage.store(entry("/huge", bytes: size * 5)))
        }
        let smaller = DiskCacheStorage(directory: directory, capacity: size * 2)
        #expect(smaller.keysByRecency.map(\.key.url) == (8..<10).map { "https://example.com/\($0)" })
        #expect(files(in: directory).filter { $0.hasSuffix(DiskCacheStorage.entrySuffix) }.count == 2)
    }

    @Test("storing a key again replaces its file: one file, counted once, the new body served")
    func replace() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
        storage.store(cacheEntry(body: "first version"))
        let second = cacheEntry(body: "second")
        storage.store(second)
        #expect(storage.entries(for: second.key) == [second])
        #expect(storage.totalSize == CacheEntryCoding.encode(second).count)
        #expect(files(in: directory).filter { $0.hasSuffix(DiskCacheStorage.entrySuffix) }.count == 1)
    }

    @Test("removing a URI deletes its files in every partition, and stays removed after a restart")
    func removal() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(entry("/a", partition: "alice"))
            storage.store(entry("/a", partition: "bob"))
            storage.store(entry("/b"))
            storage.removeAll(url: "https://example.com/a")
            #expect(storage.keysByRecency == [entry("/b").storageKey])
        }
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.keysByRecency == [entry("/b").storageKey])
        reopened.removeAll()
        #expect(files(in: directory) == [DiskCacheStorage.indexName, DiskCacheStorage.lockName])
    }

    @Test("removing a partition deletes only its files; credentialed entries of an earlier process are removed on open")
    func partitionRemoval() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 100_000)
            storage.store(entry("/a", partition: "alice"))
            storage.store(entry("/b", partition: "alice"))
            storage.store(entry("/a", partition: "bob"))
            storage.store(entry("/a"))
            storage.endPartition("alice")
            #expect(Set(storage.keysByRecency) == [entry("/a", partition: "bob").storageKey, entry("/a").storageKey])
            #expect(files(in: directory).filter { $0.hasSuffix(DiskCacheStorage.entrySuffix) }.count == 2)
        }
        let reopened = DiskCacheStorage(directory: directory, capacity: 100_000)
        #expect(reopened.keysByRecency == [entry("/a").storageKey])
        #expect(files(in: directory).filter { $0.hasSuffix(DiskCacheStorage.entrySuffix) }.count == 1)
    }

    @Test("a folder that cannot be written (here: under a regular file) stores nothing and does not crash")
    func unwritable() throws {
        let file = cacheTemporaryDirectory()
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let storage = DiskCacheStorage(directory: file.appendingPathComponent("cache"), capacity: 100_000)
        #expect(!storage.store(entry("/a")))
        #expect(storage.entries(for: entry("/a").key).isEmpty)
        #expect(storage.totalSize == 0)
    }

    // 1,000 rather than 10,000 entries: writing 10,000 files takes longer than a unit test may
    // on a shared machine. The time is printed for comparison, not asserted.
    @Test("1,000 entries reopen from the index: all listed, any one found")
    func thousand() {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let count = 1_000
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 1 << 30, indexWriteInterval: count + 1)
            for index in 0..<count { storage.store(entry("/item/\(index)", bytes: 16)) }
            storage.flush()
        }
        let clock = ContinuousClock()
        var reopened: DiskCacheStorage?
        let elapsed = clock.measure { reopened = DiskCacheStorage(directory: directory, capacity: 1 << 30) }
        print("DiskCacheStorage opened \(count) entries in \(elapsed)")
        #expect(reopened?.keysByRecency.count == count)
        #expect(reopened?.entries(for: entry("/item/432").key).count == 1)
    }
}
