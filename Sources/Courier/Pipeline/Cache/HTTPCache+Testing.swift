// What the package's tests observe of a cache; not part of the public API.

extension HTTPCache {
    /// Returns once no background revalidation runs.
    package func waitForBackgroundRevalidations() async {
        await withCheckedContinuation { continuation in
            revalidations.withLock { $0.watchers.add(continuation, until: 0, now: $0.keys.count) }?.resume()
        }
    }
}
