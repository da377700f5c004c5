import ReactorHubLocking
package import Synchronization
package import ReactorHubProtocol

/// Backpressure on the way in (issue "Bounded under attack"): while an instance has more
/// than `perInstance` actions waiting, or all instances more than `total`, the sockets of
/// the connections that sent them are no longer read, so TCP pushes back on the senders;
/// reading resumes once the backlog is down to half. And what waits is not run for
/// nobody: the actions of a connection that has closed, and every waiting action once the
/// hub drains, are withdrawn when their turn comes (`admits`).
package final class ActionLoad: Sendable {
    package let perInstance: Int
    package let total: Int
    /// The hub drains (shutdown): actions still waiting are answered `overloaded`.
    package let draining = Atomic<Bool>(false)
    private let transport: any MessageTransport
    private let waiting = Atomic<Int>(0)
    /// Paused connections, and the stream they wait on (nil: the total).
    private let paused = Locked<[ConnectionID: StreamID?]>([:])
    private let anyPaused = Atomic<Bool>(false)
    /// Instances past `perInstance`, until they are down to half: HTTP actions to them are
    /// refused (an HTTP request has no socket to stop reading).
    private let overloaded = Locked<Set<StreamID>>([])

    package init(perInstance: Int, total: Int, transport: any MessageTransport) {
        self.perInstance = max(perInstance, 1)
        self.total = max(total, 1)
        self.transport = transport
    }

    /// Actions waiting over all instances.
    package var pending: Int { waiting.load(ordering: .relaxed) }

    /// Connections whose sockets are not read now.
    package var pausedCount: Int { paused.withLock { $0.count } }

    /// An action entered an instance that now has `instancePending` waiting; pauses its
    /// sender when a bound is passed.
    package func queued(from id: ConnectionID, on stream: StreamID, instancePending: Int) {
        let all = waiting.add(1, ordering: .relaxed).newValue
        guard instancePending > perInstance || all > total else { return }
        let reason: StreamID? = instancePending > perInstance ? stream : nil
        if let reason { overloaded.withLock { _ = $0.insert(reason) } }
        let first = paused.withLock { paused -> Bool in
            defer { paused[id] = reason }
            return paused[id] == nil
        }
        anyPaused.store(true, ordering: .relaxed)
        if first { transport.setReading(id, enabled: false) }
    }

    /// An action left its instance's inbox (mutate ran).
    package func taken() {
        waiting.subtract(1, ordering: .relaxed)
    }

    /// An instance drained down to `instancePending`: resumes who waited on it, and on the
    /// total, once below half of the bounds.
    package func drained(_ stream: StreamID, instancePending: Int) {
        guard anyPaused.load(ordering: .relaxed) else { return }
        let totalLow = pending <= total / 2
        let instanceLow = instancePending <= perInstance / 2
        if instanceLow { overloaded.withLock { _ = $0.remove(stream) } }
        let resumed = paused.withLock { paused -> [ConnectionID] in
            let ready = paused.filter { _, reason in reason == nil ? totalLow : (reason == stream && instanceLow) }.map(\.key)
            for id in ready { paused[id] = nil }
            if paused.isEmpty { anyPaused.store(false, ordering: .relaxed) }
            return ready
        }
        for id in resumed {
            transport.setReading(id, enabled: true)
        }
    }

    /// Whether actions to the instance of `stream` are refused now (`overloaded`, for
    /// senders that cannot be paused): it, or all instances together, are past their bound.
    package func refuses(_ stream: StreamID) -> Bool {
        pending > total || overloaded.withLock { $0.contains(stream) }
    }

    /// Whether an action of `output` that waited is still to be run.
    package func admits(_ output: ConnectionOutput) -> Bool {
        !draining.load(ordering: .relaxed) && !output.isClosed
    }

    /// A connection closed.
    package func forget(_ id: ConnectionID) {
        guard anyPaused.load(ordering: .relaxed) else { return }
        paused.withLock { _ = $0.removeValue(forKey: id) }
    }
}
