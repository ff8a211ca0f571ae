package import Foundation

/// A new empty folder under the temporary directory, removed when the value is released: for
/// Courier's own test targets (fixture files, recordings), which share it through `package`
/// access. Not part of CourierTesting's public API.
package final class TemporaryFolder: Sendable {
    /// The folder.
    package let url: URL

    /// Creates the folder, named `courier-fixtures-<UUID>`.
    /// - Throws: whatever `FileManager` throws when it cannot create the folder.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fixtures-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Every regular file below the folder, as paths relative to it, sorted.
    package func files() -> [String] {
        let prefix = url.standardizedFileURL.path + "/"
        let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [String] = []
        while let file = enumerator?.nextObject() as? URL {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            files.append(String(file.standardizedFileURL.path.dropFirst(prefix.count)))
        }
        return files.sorted()
    }
}
