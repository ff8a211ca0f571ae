// Part of the Darwin stand-in (StandIns/Darwin.swift re-exports it): Darwin's types whose names a
// function shares (`struct stat` and `stat(_:_:)`), which one Swift module cannot declare both of,
// and the integer types Darwin declares narrower than Glibc. Copied from the SDK's C headers as
// Swift imports them (Xcode 16: sys/_types/_mode_t.h, _off_t.h, sys/_types.h, sys/stat.h with
// __DARWIN_64_BIT_INO_T). In the SDK typecheck.py makes, Foundation re-exports the Darwin stand-in
// and not Glibc, so these are the only `stat` and `mode_t` an Apple branch sees.

public import Glibc

/// `typedef __uint16_t mode_t` (Glibc: `UInt32`).
public typealias mode_t = UInt16
/// `typedef __int32_t dev_t` (Glibc: `UInt64`).
public typealias dev_t = Int32
/// `typedef __uint16_t nlink_t` (Glibc: `UInt64`).
public typealias nlink_t = UInt16
/// `typedef __int32_t blksize_t` (Glibc: `Int`).
public typealias blksize_t = Int32
/// `typedef __int64_t off_t` (Glibc: `Int`).
public typealias off_t = Int64

/// sys/stat.h `struct stat` (64-bit inodes): Darwin names the times `st_*timespec` (Glibc
/// `st_*tim`) and has `st_birthtimespec`, `st_flags` and `st_gen`.
public struct stat {
    public var st_dev: dev_t
    public var st_mode: mode_t
    public var st_nlink: nlink_t
    public var st_ino: UInt64
    public var st_uid: uid_t
    public var st_gid: gid_t
    public var st_rdev: dev_t
    public var st_atimespec: timespec
    public var st_mtimespec: timespec
    public var st_ctimespec: timespec
    public var st_birthtimespec: timespec
    public var st_size: off_t
    public var st_blocks: blkcnt_t
    public var st_blksize: blksize_t
    public var st_flags: UInt32
    public var st_gen: UInt32
    public var st_lspare: Int32
    public var st_qspare: (Int64, Int64)

    public init() {
        st_dev = 0
        st_mode = 0
        st_nlink = 0
        st_ino = 0
        st_uid = 0
        st_gid = 0
        st_rdev = 0
        st_atimespec = timespec()
        st_mtimespec = timespec()
        st_ctimespec = timespec()
        st_birthtimespec = timespec()
        st_size = 0
        st_blocks = 0
        st_blksize = 0
        st_flags = 0
        st_gen = 0
        st_lspare = 0
        st_qspare = (0, 0)
    }
}
