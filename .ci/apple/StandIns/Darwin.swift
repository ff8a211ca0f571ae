// Stand-in for Apple's Darwin module (the C library), for type-checking Courier's Apple-only
// code on Linux (.ci/apple/typecheck.py). It does not re-export Glibc. It declares what Darwin has
// differently, and re-exports by name (scoped imports) the Glibc declarations that Darwin has
// with the same Swift shape, each group with the header it is checked against (Xcode 16 SDKs).
// Only what Courier uses.
//
// In the SDK typecheck.py makes, Foundation re-exports this module instead of Glibc (as Apple's
// Foundation re-exports Darwin), so an Apple branch sees only what this file declares or
// re-exports: a Glibc-only name (MSG_NOSIGNAL, epoll_…) or field (`stat().st_mtim`) does not
// compile. typecheck.py also lists every Glibc declaration the Apple copy refers to (`swiftc
// -dump-ast`) and fails on a field of a re-exported struct that its `// fields …:` line does not
// name. Known shape differences that Courier's uses tolerate are noted.

public import Glibc
@_exported public import DarwinShapes

// MARK: - sys/errno.h (and the overlay's POSIXErrorCode)
@_exported import var Glibc.errno
@_exported import enum Glibc.POSIXErrorCode
@_exported import var Glibc.EACCES
@_exported import var Glibc.EAGAIN
@_exported import var Glibc.ECONNABORTED
@_exported import var Glibc.EEXIST
@_exported import var Glibc.EINTR
@_exported import var Glibc.EINVAL
@_exported import var Glibc.EIO
@_exported import var Glibc.EISDIR
@_exported import var Glibc.ELOOP
@_exported import var Glibc.EMLINK
@_exported import var Glibc.ENOENT
@_exported import var Glibc.ENOTDIR
@_exported import var Glibc.ENXIO
@_exported import var Glibc.EPERM
@_exported import var Glibc.EPROTO
@_exported import var Glibc.EWOULDBLOCK
@_exported import var Glibc.ECONNRESET
@_exported import var Glibc.ENOTCONN
@_exported import var Glibc.EPIPE
@_exported import var Glibc.ESHUTDOWN
@_exported import var Glibc.ETIMEDOUT
// Darwin's sys/errno.h has these too (values differ from Linux; Courier compares by name)
@_exported import var Glibc.EADDRNOTAVAIL
@_exported import var Glibc.EAFNOSUPPORT
@_exported import var Glibc.ECONNREFUSED
@_exported import var Glibc.EHOSTUNREACH
@_exported import var Glibc.ENETDOWN
@_exported import var Glibc.ENETUNREACH

// MARK: - sys/fcntl.h, as the Darwin overlay declares `open` and `openat` (its `mode_t` is Darwin's)
// (Bodies here are dummies: the module is only compiled against.)
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32) -> Int32 { -1 }
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32, _ mode: DarwinShapes.mode_t) -> Int32 { -1 }
public func openat(_ fd: Int32, _ path: UnsafePointer<CChar>, _ oflag: Int32) -> Int32 { -1 }
public func openat(_ fd: Int32, _ path: UnsafePointer<CChar>, _ oflag: Int32, _ mode: DarwinShapes.mode_t) -> Int32 { -1 }
@_exported import func Glibc.fcntl
@_exported import var Glibc.FD_CLOEXEC
@_exported import var Glibc.F_GETFL
@_exported import var Glibc.F_SETFD
@_exported import var Glibc.F_SETFL
@_exported import var Glibc.O_APPEND
@_exported import var Glibc.O_CLOEXEC
@_exported import var Glibc.O_CREAT
@_exported import var Glibc.O_DIRECTORY
@_exported import var Glibc.O_EXCL
@_exported import var Glibc.O_NOFOLLOW
@_exported import var Glibc.O_NONBLOCK
@_exported import var Glibc.O_RDONLY
@_exported import var Glibc.O_RDWR
@_exported import var Glibc.O_WRONLY
@_exported import var Glibc.AT_SYMLINK_NOFOLLOW
/// `#define F_FULLFSYNC 51` (Darwin only).
public var F_FULLFSYNC: Int32 { 51 }

// MARK: - sys/file.h. `flock` names a function and a struct, which a scoped import cannot pick.
public func flock(_ fd: Int32, _ operation: Int32) -> Int32 { -1 }
@_exported import var Glibc.LOCK_EX
@_exported import var Glibc.LOCK_NB

// MARK: - unistd.h
@_exported import func Glibc.close
@_exported import func Glibc.read
@_exported import func Glibc.write
@_exported import func Glibc.fsync
/// The positional calls take Darwin's `off_t` (`Int64`; Glibc's is `Int`). Bodies are dummies.
public func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer!, _ count: Int, _ offset: DarwinShapes.off_t) -> Int { -1 }
public func pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer!, _ count: Int, _ offset: DarwinShapes.off_t) -> Int { -1 }
public func lseek(_ fd: Int32, _ offset: DarwinShapes.off_t, _ whence: Int32) -> DarwinShapes.off_t { -1 }
public func ftruncate(_ fd: Int32, _ length: DarwinShapes.off_t) -> Int32 { -1 }
@_exported import func Glibc.unlink
@_exported import func Glibc.unlinkat
@_exported import func Glibc.pipe
@_exported import func Glibc.geteuid
@_exported import var Glibc.SEEK_END
@_exported import var Glibc.SEEK_SET

// MARK: - stdio.h
@_exported import func Glibc.rename
@_exported import func Glibc.renameat

// MARK: - sys/stat.h, sys/types.h, as the Darwin overlay declares them. `mode_t` is `UInt16` on
// Darwin (`UInt32` on Glibc), `dev_t` `Int32` (`UInt64`), `nlink_t` `UInt16` (`UInt64`), and
// `struct stat` has other field names: they are DarwinShapes', and these functions take them.
public func stat(_ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<DarwinShapes.stat>) -> Int32 { -1 }
public func fstat(_ fd: Int32, _ buffer: UnsafeMutablePointer<DarwinShapes.stat>) -> Int32 { -1 }
public func lstat(_ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<DarwinShapes.stat>) -> Int32 { -1 }
public func fstatat(_ fd: Int32, _ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<DarwinShapes.stat>, _ flag: Int32) -> Int32 { -1 }
public func chmod(_ path: UnsafePointer<CChar>, _ mode: DarwinShapes.mode_t) -> Int32 { -1 }
public func fchmod(_ fd: Int32, _ mode: DarwinShapes.mode_t) -> Int32 { -1 }
@discardableResult
public func umask(_ mask: DarwinShapes.mode_t) -> DarwinShapes.mode_t { 0 }
public var S_IFMT: DarwinShapes.mode_t { 0o170000 }
public var S_IFIFO: DarwinShapes.mode_t { 0o010000 }
public var S_IFCHR: DarwinShapes.mode_t { 0o020000 }
public var S_IFDIR: DarwinShapes.mode_t { 0o040000 }
public var S_IFBLK: DarwinShapes.mode_t { 0o060000 }
public var S_IFREG: DarwinShapes.mode_t { 0o100000 }
public var S_IFLNK: DarwinShapes.mode_t { 0o120000 }
public var S_IFSOCK: DarwinShapes.mode_t { 0o140000 }

// MARK: - dirent.h. Darwin's `d_name` is a 1024-byte tuple (Glibc's 256): Courier reads it in
// place up to its NUL, through its offset, which works with either.
// fields dirent: d_name
@_exported import func Glibc.opendir
@_exported import func Glibc.readdir
@_exported import func Glibc.closedir
@_exported import struct Glibc.dirent

// MARK: - poll.h
// fields pollfd: fd events revents
@_exported import func Glibc.poll
@_exported import struct Glibc.pollfd
@_exported import var Glibc.POLLIN
@_exported import var Glibc.POLLOUT
@_exported import typealias Glibc.nfds_t

// MARK: - sys/socket.h. `sa_family_t` is `UInt8` on Darwin (`UInt16` on Glibc): Courier converts
// through `sa_family_t(…)`.
@_exported import func Glibc.socket
@_exported import func Glibc.bind
@_exported import func Glibc.listen
@_exported import func Glibc.accept
@_exported import func Glibc.getsockname
@_exported import func Glibc.setsockopt
@_exported import func Glibc.shutdown
@_exported import func Glibc.send
@_exported import func Glibc.recv
@_exported import struct Glibc.sockaddr
@_exported import struct Glibc.sockaddr_storage
@_exported import typealias Glibc.socklen_t
@_exported import typealias Glibc.sa_family_t
@_exported import var Glibc.SOL_SOCKET
@_exported import var Glibc.SHUT_WR
@_exported import var Glibc.AF_INET
@_exported import var Glibc.AF_INET6
/// `#define SOCK_STREAM 1`: an `Int32` (Glibc's is a case of `enum __socket_type`).
public var SOCK_STREAM: Int32 { 1 }
/// `#define SO_NOSIGPIPE 0x1022` (Linux has `MSG_NOSIGNAL` instead).
public var SO_NOSIGPIPE: Int32 { 0x1022 }

// MARK: - netinet/in.h, netinet6/in6.h. BSD socket addresses start with a length byte.
// fields sockaddr_in: sin_family sin_port sin_addr
// fields sockaddr_in6: sin6_family sin6_port sin6_addr
// fields in_addr: s_addr
@_exported import struct Glibc.sockaddr_in
@_exported import struct Glibc.sockaddr_in6
@_exported import struct Glibc.in_addr
@_exported import struct Glibc.in6_addr
@_exported import var Glibc.IPPROTO_IPV6
@_exported import var Glibc.IPV6_V6ONLY

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

// MARK: - stdlib.h. Neither header annotates nullability: both return an implicitly unwrapped
// pointer.
@_exported import func Glibc.realpath
@_exported import func Glibc.free

// MARK: - string.h, math.h
@_exported import func Glibc.memcmp
@_exported import func Glibc.strerror
@_exported import func Glibc.pow
