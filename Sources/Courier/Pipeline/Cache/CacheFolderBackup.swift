import Foundation

/// Keeps a disk cache's folder out of the user's backups on Apple platforms (iCloud and
/// Finder/iTunes backups): a cache is rebuilt from the network, so backing it up costs the user
/// quota and copies responses (often personal) off the device for nothing. Apple's guidance for
/// app data: a folder that can be re-downloaded is marked `isExcludedFromBackup`. Elsewhere it
/// does nothing (Linux has no such attribute).
///
/// The attribute is set on the folder itself, which covers everything inside it, now and later.
enum CacheFolderBackup {
    /// Where tests see which folders are marked, on any platform: when set, it is called instead.
    @TaskLocal static var marking: (@Sendable (URL) -> Void)?

    /// Marks `directory` as excluded from backups on Apple platforms; does nothing elsewhere.
    /// Best effort: a folder whose attribute cannot be set stays as it was (the cache works the
    /// same either way). Setting it again does nothing more, so it is called on every open: a
    /// folder the app made first, or one an older version left unmarked, is marked too.
    static func excludeFromBackups(_ directory: URL) {
        if let marking {
            marking(directory)
            return
        }
        #if canImport(Darwin)
            exclude(directory) { url, values in try url.setResourceValues(values) }
        #endif
    }

    /// The resource values that exclude a file or folder from backups.
    static var excludedValues: URLResourceValues {
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        return values
    }

    /// Sets ``excludedValues`` on `directory` with `setValues` (`URL.setResourceValues` on Apple
    /// platforms), ignoring a failure.
    /// - Returns: whether the values were set: `false` for a URL that is not a file URL (nothing
    ///   is asked) and when `setValues` throws.
    @discardableResult
    static func exclude(_ directory: URL, setValues: (inout URL, URLResourceValues) throws -> Void) -> Bool {
        guard directory.isFileURL else { return false }
        var url = directory
        do {
            try setValues(&url, excludedValues)
            return true
        } catch {
            return false
        }
    }
}
