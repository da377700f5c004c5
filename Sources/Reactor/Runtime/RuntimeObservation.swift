import ReactorHubLocking
import Synchronization

/// A registration with `ReactorRuntime.observe(_:)`, ended by `cancel()` or by releasing it.
public final class RuntimeObservation: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    /// Stops the observer: once this returns, it is called at most for an event being delivered.
    public func cancel() {
        let onCancel = onCancel.withLock { onCancel in
            defer { onCancel = nil }
            return onCancel
        }
        onCancel?()
    }

    deinit {
        cancel()
    }
}

/// One observer of a runtime: its callback, what to do when the runtime goes away, and whether
/// it still wants events.
final class RuntimeObserver<State: Sendable>: Sendable {
    private let handler: @Sendable (RuntimeEvent<State>) -> Void
    private let onEnd: (@Sendable () -> Void)?
    private let isActive = Atomic(true)

    init(handler: @escaping @Sendable (RuntimeEvent<State>) -> Void, onEnd: (@Sendable () -> Void)? = nil) {
        self.handler = handler
        self.onEnd = onEnd
    }

    func deliver(_ event: RuntimeEvent<State>) {
        if isActive.load(ordering: .acquiring) {
            handler(event)
        }
    }

    func deactivate() {
        isActive.store(false, ordering: .releasing)
    }

    /// Tells the observer that no event will come any more (its runtime is gone).
    func end() {
        if isActive.exchange(false, ordering: .acquiringAndReleasing) {
            onEnd?()
        }
    }
}
