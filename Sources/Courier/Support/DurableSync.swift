#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Flushes the file (or directory) open at `descriptor` to stable storage, so that what was
/// written survives a crash or a power loss: what the token file and downloads promise.
///
/// On Apple platforms `fsync(2)` only hands the data to the drive, which may keep it in its
/// cache; `fcntl(F_FULLFSYNC)` asks the drive to flush too. Where the file system refuses
/// `F_FULLFSYNC` (some network and FAT volumes), it falls back to `fsync`. Elsewhere it is `fsync`.
///
/// - Returns: `0` on success, `-1` with `errno` set otherwise.
func durableSync(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return 0 }
    #endif
    return fsync(descriptor)
}
