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
