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

    /// Whether `path` (resolved, absolute) is in an App Group container.
    static func contains(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard components.count >= 3 else { return false }
        return (0...(components.count - 3)).contains {
            components[$0] == "Containers" && components[$0 + 1] == "Shared" && components[$0 + 2] == "AppGroup"
        }
    }

    /// Why `path` cannot hold a lock here, or `nil` when it can.
    static func refusal(for path: String, refusesLocks: Bool = refusesLocks) -> String? {
        guard refusesLocks, contains(path) else { return nil }
        return "\(path) is in an App Group container, where the system terminates a suspended app that holds a file lock "
            + "(0xdead10cc); use a folder of the app's own container"
    }
}
