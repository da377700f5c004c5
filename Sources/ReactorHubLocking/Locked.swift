/// A value only reachable while holding its lock; the one lock idiom of this package (see `Lock`).
package final class Locked<Value> {
    private let lock = Lock()
    private var value: Value

    /// Protects `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// `@unchecked`: the value is only reached through `withLock`, which holds the lock.
extension Locked: @unchecked Sendable where Value: Sendable {}
