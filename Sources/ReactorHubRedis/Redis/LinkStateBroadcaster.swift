import ReactorHubLocking

/// Holds a link's state and hands every change to the streams handed out by `stream()`.
/// Changes come from one thread (the worker that owns the connection), so every consumer
/// sees them in order.
final class LinkStateBroadcaster: Sendable {
    private struct State: Sendable {
        var current: RedisLinkState = .down(RedisError(.connection, "not connected yet"))
        var finished = false
        var nextID = 0
        var consumers: [Int: AsyncStream<RedisLinkState>.Continuation] = [:]
    }

    private let state = Locked(State())

    /// The state now.
    var current: RedisLinkState {
        state.withLock { $0.current }
    }

    /// A stream of the current state, then of every change.
    func stream() -> AsyncStream<RedisLinkState> {
        let (stream, continuation) = AsyncStream.makeStream(of: RedisLinkState.self, bufferingPolicy: .unbounded)
        let (id, current, finished) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if !state.finished { state.consumers[id] = continuation }
            return (id, state.current, state.finished)
        }
        continuation.yield(current)
        if finished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.consumers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Records `new`; returns false (and tells nobody) when it is the same kind of state
    /// as before (down after down).
    @discardableResult
    func change(to new: RedisLinkState) -> Bool {
        let consumers: [AsyncStream<RedisLinkState>.Continuation]? = state.withLock { state in
            guard !state.finished, state.current.isUp != new.isUp else { return nil }
            state.current = new
            return Array(state.consumers.values)
        }
        guard let consumers else { return false }
        for consumer in consumers {
            consumer.yield(new)
        }
        return true
    }

    /// Records the final state and ends every stream.
    func finish(_ final: RedisLinkState) {
        let consumers = state.withLock { state in
            let wasUp = state.current.isUp
            state.current = final
            state.finished = true
            let consumers = state.consumers
            state.consumers = [:]
            return (wasUp, Array(consumers.values))
        }
        for consumer in consumers.1 {
            if consumers.0 { consumer.yield(final) }
            consumer.finish()
        }
    }
}
