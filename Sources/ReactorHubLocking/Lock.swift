#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock on `pthread_mutex_t`, in the manner of swift-nio's `NIOLock`.
///
/// Used instead of `Synchronization.Mutex` because on Linux that one locks inside the
/// uninstrumented Synchronization library, so ThreadSanitizer sees no ordering and reports every
/// access it protects as a race; the pthread functions are intercepted by the sanitizer, which
/// keeps `swift test --sanitize=thread` meaningful. Costs the same when uncontended.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Waits for and takes the lock.
    @inline(__always)
    package func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }

    /// Releases the lock taken by `lock()`.
    @inline(__always)
    package func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
