import Foundation

/// App Group containers, where iOS terminates a suspended app that holds a file lock
/// (exception code 0xdead10cc): the folders an app shares with its extensions, under
/// `…/Containers/Shared/AppGroup/<UUID>/` on a device and in the simulator.
///
/// `HTTPCache(directory:)` holds a lock on its folder while it is open and ``FileTokenStore``
/// holds one across a refresh's network call, which a suspension can interrupt; so on iOS, tvOS,
/// watchOS and visionOS both refuse such a place (a folder of the app's own container is fine).
/// macOS does not suspend apps this way.
enum AppGroupContainer {
    /// Whether this platform terminates a suspended app for a lock in a shared container.
    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        static let refusesLocks = true
    #else
        static let refusesLocks = false
    #endif

    /// Whether `path` (resolved, absolute) is in an App Group container, in any case (the
    /// simulator's file system ignores it).
    static func contains(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).map { $0.lowercased() }
        guard components.count >= 3 else { return false }
        return (0...(components.count - 3)).contains {
            components[$0] == "containers" && components[$0 + 1] == "shared" && components[$0 + 2] == "appgroup"
        }
    }

    /// Why the file or folder at `url` cannot hold a lock here, or `nil` when it can. The place is
    /// where `url` really leads: its nearest existing ancestor with every link resolved, then the
    /// rest of its path (a folder not created yet under a link into a container is refused).
    static func refusal(for url: URL, refusesLocks: Bool = refusesLocks) -> String? {
        guard refusesLocks else { return nil }
        let path = resolved(url.standardizedFileURL)
        guard contains(path) else { return nil }
        return "\(path) is in an App Group container, where the system terminates a suspended app that holds a file lock "
            + "(0xdead10cc); use a folder of the app's own container"
    }

    /// `url`'s path through its nearest existing ancestor, links resolved.
    private static func resolved(_ url: URL) -> String {
        var existing = url
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        return rest.reduce(existing.resolvingSymlinksInPath()) { $0.appendingPathComponent($1) }.path
    }
}
