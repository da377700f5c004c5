import ReactorHubLocking
extension ReactorRuntime {
    /// Calls `observer` in the serial context with `.state` after every reduce (and every stub
    /// state), and `.drained` each time everything queued so far has been processed and the
    /// runtime is about to go idle (during a long stretch of work, also every 512 items or so).
    ///
    /// The current state is not delivered; read `currentState` first. Observation ends when the
    /// returned token is cancelled or released. An observer may send actions: they are queued.
    public func observe(_ observer: @escaping @Sendable (RuntimeEvent<R.State>) -> Void) -> RuntimeObservation {
        let entry = RuntimeObserver(handler: observer)
        published.add(entry)
        return RuntimeObservation { [weak self] in
            entry.deactivate()
            self?.published.remove(entry)
        }
    }

    /// The current state, then every new state; finishes when the runtime is released.
    public var states: AsyncStream<R.State> {
        let (stream, continuation) = AsyncStream<R.State>.makeStream()
        let entry = RuntimeObserver<R.State>(
            handler: { event in
                if case .state(let state) = event {
                    continuation.yield(state)
                }
            },
            onEnd: { continuation.finish() }
        )
        published.add(entry, start: { continuation.yield($0) })
        continuation.onTermination = { [weak self] _ in
            entry.deactivate()
            self?.published.remove(entry)
        }
        return stream
    }

    /// The values assigned to a pulse from now on, one per assignment, like ReactorKit's
    /// `reactor.pulse(\.$alertMessage)`.
    ///
    /// Unlike ReactorKit, the pulse's current value is not replayed: a late subscriber sees only
    /// pulses that fire after it subscribed. Several assignments in one reduce emit once, with the
    /// last value.
    public func pulse<Value: Sendable>(_ keyPath: any KeyPath<R.State, Pulse<Value>> & Sendable) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let lastCount = PulseCursor()
        let entry = RuntimeObserver<R.State>(
            handler: { event in
                guard case .state(let state) = event else { return }
                let pulse = state[keyPath: keyPath]
                if lastCount.advance(to: pulse.valueUpdatedCount) {
                    continuation.yield(pulse.value)
                }
            },
            onEnd: { continuation.finish() }
        )
        published.add(entry, start: { _ = lastCount.advance(to: $0[keyPath: keyPath].valueUpdatedCount) })
        continuation.onTermination = { [weak self] _ in
            entry.deactivate()
            self?.published.remove(entry)
        }
        return stream
    }
}

/// The update count of a pulse last seen by one `pulse(_:)` stream.
private final class PulseCursor: Sendable {
    private let count = Locked<UInt?>(nil)

    /// Records `newCount`; returns true if it differs from the one before.
    func advance(to newCount: UInt) -> Bool {
        count.withLock { count in
            defer { count = newCount }
            return count != newCount
        }
    }
}
