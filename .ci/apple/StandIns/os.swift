// Stand-in for Apple's `os` module (os/lock.h), for type-checking Courier's Apple-only code on
// Linux (.ci/apple/typecheck.sh). Only what Courier uses, as the SDK's Clang importer presents
// os/lock.h to Swift (Xcode 16 SDKs): `os_unfair_lock` is a typealias of the C struct
// `os_unfair_lock_s` (frozen, as every imported C struct), the functions take `os_unfair_lock_t`
// (`UnsafeMutablePointer<os_unfair_lock_s>`); availability from the header's
// OS_UNFAIR_LOCK_AVAILABILITY. Built with -enable-library-evolution, as Apple's modules are. Bodies
// are dummies.

@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
@frozen
public struct os_unfair_lock_s {
    public var _os_unfair_lock_opaque: UInt32
    public init() { _os_unfair_lock_opaque = 0 }
    public init(_os_unfair_lock_opaque: UInt32) { self._os_unfair_lock_opaque = _os_unfair_lock_opaque }
}

public typealias os_unfair_lock = os_unfair_lock_s
public typealias os_unfair_lock_t = UnsafeMutablePointer<os_unfair_lock_s>

@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func os_unfair_lock_lock(_ lock: os_unfair_lock_t) {}

@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func os_unfair_lock_unlock(_ lock: os_unfair_lock_t) {}

@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func os_unfair_lock_trylock(_ lock: os_unfair_lock_t) -> Bool { true }
