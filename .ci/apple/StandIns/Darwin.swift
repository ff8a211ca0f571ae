// Stand-in for Apple's Darwin module (the C library), for type-checking Courier's Apple-only
// code on Linux (.ci/apple/typecheck.sh). It re-exports Glibc, whose POSIX functions have the
// same names and shapes, and replaces what Darwin declares differently where Courier's Darwin
// branches rely on it, copied from the macOS 15 / iOS 18 SDK headers: `SOCK_STREAM` is an
// `Int32` macro (Glibc's is an enum), `sockaddr_in`/`sockaddr_in6` have a length byte,
// `SO_NOSIGPIPE` and `F_FULLFSYNC` exist. A Glibc-only name still type-checks here, so a stand-in
// pass is necessary, not sufficient: the Apple branches stay thin for that reason.

@_exported import Glibc

/// sys/socket.h: `#define SOCK_STREAM 1`.
public var SOCK_STREAM: Int32 { 1 }
/// sys/socket.h: `#define SO_NOSIGPIPE 0x1022`.
public var SO_NOSIGPIPE: Int32 { 0x1022 }
/// sys/fcntl.h: `#define F_FULLFSYNC 51`.
public var F_FULLFSYNC: Int32 { 51 }

extension sockaddr_in {
    /// netinet/in.h: `__uint8_t sin_len`.
    public var sin_len: UInt8 {
        get { 0 }
        set {}
    }
}

extension sockaddr_in6 {
    /// netinet6/in6.h: `__uint8_t sin6_len`.
    public var sin6_len: UInt8 {
        get { 0 }
        set {}
    }
}
