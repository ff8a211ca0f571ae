import Foundation
import Testing

@testable import Courier

/// What Linux can check of the Apple-only backup exclusion of a disk cache's folder: which values
/// are set on which URL, that a failure is ignored, and that off Apple platforms nothing happens.
@Suite("Apple platforms: a cache folder is excluded from backups")
struct CacheFolderBackupTests {
    @Test func theFolderItselfIsMarkedExcludedFromBackups() {
        let folder = URL(fileURLWithPath: "/tmp/courier-cache", isDirectory: true)
        var marked: [(URL, URLResourceValues)] = []
        let set = CacheFolderBackup.exclude(folder) { url, values in marked.append((url, values)) }
        #expect(set)
        #expect(marked.count == 1)
        #expect(marked.first?.0 == folder)
        #expect(marked.first?.1.isExcludedFromBackup == true)
    }

    @Test func aURLThatIsNotAFileURLIsLeftAlone() {
        var asked = false
        let set = CacheFolderBackup.exclude(URL(string: "https://example.com/cache")!) { _, _ in asked = true }
        #expect(!set)
        #expect(!asked)
    }

    @Test func aFailureToSetTheAttributeIsIgnored() {
        struct Refused: Error {}
        let set = CacheFolderBackup.exclude(URL(fileURLWithPath: "/nonexistent/cache")) { _, _ in throw Refused() }
        #expect(!set)
    }

    @Test func onlyTheBackupAttributeIsSet() {
        #expect(CacheFolderBackup.excludedValues.isExcludedFromBackup == true)
        #expect(CacheFolderBackup.excludedValues.allValues.count == 1)
    }

    @Test(
        "HTTPCache(directory:) marks its folder on every open: one it made, one the app made first, and again when reopened",
        arguments: [false, true])
    func everyOpenMarksTheFolder(appMadeItFirst: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-backup-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if appMadeItFirst {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        let marked = LockedState([String]())
        try CacheFolderBackup.$marking.withValue({ url in marked.withLock { $0.append(url.standardizedFileURL.path) } }) {
            _ = try HTTPCache(directory: folder)
            _ = try HTTPCache(directory: folder)
        }
        let expected = folder.resolvingSymlinksInPath().standardizedFileURL.path
        #expect(marked.withLock { $0 }.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path } == [expected, expected])
    }

    /// Off Apple platforms the public entry point does nothing: the folder and its contents stay
    /// as they were (nothing is created, nothing thrown).
    @Test func offApplePlatformsNothingHappens() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-backup-\(UUID().uuidString)")
        CacheFolderBackup.excludeFromBackups(folder)
        #if !canImport(Darwin)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        #endif
    }
}
