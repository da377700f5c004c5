package import ReactorHubProtocol
import ReactorHubLocking
package import ReactorHubLogging
import Synchronization

/// The one home of what is in flight to each connection: every message the hub sends
/// goes through here into the connection's `Outbox` (whose policy decides what is kept,
/// merged or shed), and the transport pulls from here when a socket can take more.
package final class Delivery: Sendable {
    package let transport: any MessageTransport
    package let limits: DeliveryLimits
    private let logger: Logger
    private let outputs = Locked<[ConnectionID: ConnectionOutput]>([:])
    /// The outboxes' locks, and their totals (`queuedBytes`).
    private let locks = OutboxLocks()
    /// What the outboxes of closed connections had written.
    private let closedWritten = Locked(WrittenCounts())
    package let metrics: HubMetrics
    /// All outboxes together hold more than the budget (sampled by `OutboundBudget`).
    private let overBudget = Atomic<Bool>(false)

    package init(transport: any MessageTransport, limits: DeliveryLimits, metrics: HubMetrics, logger: Logger) {
        self.transport = transport
        self.limits = limits
        self.metrics = metrics
        self.logger = logger
    }

    /// Creates the outbox of a connection that opened.
    package func open(_ id: ConnectionID) -> ConnectionOutput {
        let output = ConnectionOutput(id: id, limits: limits, locks: locks)
        outputs.withLock { $0[id] = output }
        return output
    }

    /// Forgets a connection that closed, and what waited for it.
    package func closed(_ id: ConnectionID) {
        let output = outputs.withLock { $0.removeValue(forKey: id) }
        output?.close()
        if let written = output?.written {
            closedWritten.withLock { $0 = $0 + written }
        }
    }

    /// Queues `entry` for one connection.
    package func send(_ entry: Outgoing, to output: ConnectionOutput) {
        if let receiver = output.receiver { return receiver(entry) }
        let report = output.append(entry, pressure: overBudget.load(ordering: .relaxed))
        if report.wake { transport.outputReady(output.id) }
        handle(report, of: output)
    }

    /// Queues `entries`, in order, for one connection, under one lock of its outbox.
    package func send(_ entries: [Outgoing], to output: ConnectionOutput) {
        guard !entries.isEmpty else { return }
        if append(entries, to: output, pressure: overBudget.load(ordering: .relaxed)) {
            transport.outputReady(output.id)
        }
    }

    /// Queues `entries`, in order, for each of `outputs` (the same buffers for all).
    package func send(_ entries: [Outgoing], to outputs: [ConnectionOutput]) {
        guard !entries.isEmpty, !outputs.isEmpty else { return }
        var wake: [ConnectionID] = []
        wake.reserveCapacity(outputs.count)
        let pressure = overBudget.load(ordering: .relaxed)
        for output in outputs where append(entries, to: output, pressure: pressure) {
            wake.append(output.id)
        }
        if wake.count == 1 {
            transport.outputReady(wake[0])
        } else if !wake.isEmpty {
            transport.outputReady(wake)
        }
    }

    /// Appends `entries` to `output`'s outbox (or hands them to its receiver) and acts on a
    /// shed or an overload; whether the transport must be told the connection has output.
    private func append(_ entries: [Outgoing], to output: ConnectionOutput, pressure: Bool) -> Bool {
        if let receiver = output.receiver {
            entries.forEach(receiver)
            return false
        }
        let report = output.append(entries, pressure: pressure)
        if report.shedMessages > 0 || report.overloaded { handle(report, of: output) }
        return report.wake
    }

    /// The next message for the transport to write to `id`, whether it was the last one
    /// waiting, and the streams whose snapshots are owed now that its outbox drained after
    /// a lag: one lookup and one lock.
    package func pull(for id: ConnectionID) -> Outbox.Pull {
        guard let output = outputs.withLock({ $0[id] }) else { return Outbox.Pull() }
        return output.pull()
    }

    /// The transport found `id`'s socket full with output waiting.
    package func choked(_ id: ConnectionID) {
        guard let output = outputs.withLock({ $0[id] }) else { return }
        handle(output.choke(), of: output)
    }

    /// The outbox of `id`, while it is open.
    package func output(of id: ConnectionID) -> ConnectionOutput? {
        outputs.withLock { $0[id] }
    }

    /// Payload bytes waiting over every connection: the stripes' totals, so that sampling
    /// it four times a second does not visit every connection (that visit was 43 % of the
    /// daemon's CPU holding 18,000 idle connections; BENCHMARKS.md, "Idle memory per
    /// connection (issue 38)").
    package var queuedBytes: Int {
        locks.queuedBytes
    }

    /// Samples the bytes all outboxes hold against `budget`; returns them.
    @discardableResult
    package func samplePressure(budget: Int) -> Int {
        let total = queuedBytes
        let over = total > budget
        if over != overBudget.load(ordering: .relaxed) {
            overBudget.store(over, ordering: .relaxed)
            logger.warning(over ? "outbound budget exceeded: full sockets shed early" : "outbound budget back under its limit",
                           metadata: ["queuedBytes": String(total), "budget": String(budget)])
        }
        return total
    }

    /// What every connection's outbox handed to its socket, closed ones included.
    package var written: WrittenCounts {
        outputs.withLock { Array($0.values) }.reduce(closedWritten.withLock { $0 }) { $0 + $1.written }
    }

    /// The open outboxes (admin listing, metrics).
    package var openOutputs: [ConnectionOutput] {
        outputs.withLock { Array($0.values) }
    }

    private func handle(_ report: ConnectionOutput.Report, of output: ConnectionOutput) {
        if report.overloaded {
            metrics.slowConsumers.increment("closed")
            logger.info(
                "connection too slow to keep its replies; closing",
                metadata: ["session": output.id.description, "limit": String(limits.overloadBytes)]
            )
            transport.close(output.id, .tooSlow, afterFlush: false)
        } else if report.shedMessages > 0 {
            metrics.slowConsumers.increment("dropped")
            logger.info(
                "slow connection: discarded queued updates",
                metadata: [
                    "session": output.id.description,
                    "discarded": String(report.shedMessages),
                    "streams": report.laggingStreams.map(\.description).joined(separator: ","),
                ]
            )
        }
    }
}
