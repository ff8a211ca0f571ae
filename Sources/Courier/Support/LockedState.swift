#if canImport(os)
    import os
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a lock, for state that many tasks touch briefly and that must not cost an
/// actor hop (the call gate, call metrics, and CourierTesting's clock, through `package` access).
///
/// The value and the lock live in one `ManagedBuffer`. Keep the closures short; they are
/// synchronous, so they cannot `await` while holding the lock.
///
/// A struct over one shared storage object: copies share the value and the lock. The value must
/// be `Sendable`: it leaves the lock by copy. A type that must keep a non-`Sendable` object keeps
/// it itself, beside the lock, and says why that is safe.
///
/// `@unchecked Sendable`: the value is only read and written inside ``withLock(_:)``, under the lock.
package struct LockedState<Value: Sendable>: @unchecked Sendable {
    private let storage: Storage

    /// A lock around `value`.
    package init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Whether `other` is this lock itself (a copy of the same one), not another one.
    package func isSame(as other: LockedState) -> Bool {
        storage === other.storage
    }

    /// Runs `body` with the value, under the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, lock in
            LockPrimitive.lock(lock)
            defer { LockPrimitive.unlock(lock) }
            return try body(&value.pointee)
        }
    }

    /// The value as the header and the lock as the one element of a `ManagedBuffer`.
    private final class Storage: ManagedBuffer<Value, LockPrimitive.Raw> {
        static func make(_ value: Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { LockPrimitive.initialize($0) }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToElements { LockPrimitive.destroy($0) }
        }
    }
}

/// The platform's plainest mutex: `os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere.
private enum LockPrimitive {
    #if canImport(os)
        typealias Raw = os_unfair_lock

        static func initialize(_ lock: UnsafeMutablePointer<Raw>) { lock.initialize(to: os_unfair_lock()) }
        static func destroy(_ lock: UnsafeMutablePointer<Raw>) { lock.deinitialize(count: 1) }
        static func lock(_ lock: UnsafeMutablePointer<Raw>) { os_unfair_lock_lock(lock) }
        static func unlock(_ lock: UnsafeMutablePointer<Raw>) { os_unfair_lock_unlock(lock) }
    #else
        typealias Raw = pthread_mutex_t

        static func initialize(_ lock: UnsafeMutablePointer<Raw>) {
            lock.initialize(to: pthread_mutex_t())
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            defer { pthread_mutexattr_destroy(&attributes) }
            #if canImport(Glibc)
                // Spins briefly before sleeping: the sections this lock guards are a few hundred
                // nanoseconds, shorter than a sleep and a wake-up.
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            #endif
            let result = pthread_mutex_init(lock, &attributes)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
        }

        static func destroy(_ lock: UnsafeMutablePointer<Raw>) {
            pthread_mutex_destroy(lock)
            lock.deinitialize(count: 1)
        }

        static func lock(_ lock: UnsafeMutablePointer<Raw>) {
            let result = pthread_mutex_lock(lock)
            precondition(result == 0, "pthread_mutex_lock failed: \(result)")
        }

        static func unlock(_ lock: UnsafeMutablePointer<Raw>) {
            let result = pthread_mutex_unlock(lock)
            precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
        }
    #endif
}
