package import ReactorHubProtocol
import ReactorHubLocking

/// One connection's outbox, shared by whoever sends to it (instances on their serial
/// contexts, the hub on the service thread) and the transport that pulls from it.
///
/// A caller inside the process (an HTTP request waiting for its action's reply) has a
/// `receiver` instead: what is sent to it is handed over at once, and nothing queues.
///
/// The outbox is guarded by a stripe of `OutboxLocks`, a lock shared by many connections
/// (chosen by the connection's number), not by a lock of its own: a `Locked` per connection
/// cost three allocations, about 110 bytes per connection (BENCHMARKS.md, "Idle memory per
/// connection (issue 38)"). A lock is held only inside one outbox's operation, never while taking
/// another, so sharing one cannot deadlock. The stripe also keeps the total its outboxes
/// hold, so that the outbound budget is read without visiting every connection.
package final class ConnectionOutput: @unchecked Sendable {
    package let id: ConnectionID
    /// Reached only through `withOutbox`, under `stripe.lock`.
    private var outbox: Outbox
    private let stripe: OutboxLocks.Stripe
    /// Takes everything sent to a caller inside the process; nil for a transport's connection.
    package let receiver: (@Sendable (Outgoing) -> Void)?

    /// `locks`: whose totals count this outbox (a `Delivery`'s; outputs of their own by default).
    package init(
        id: ConnectionID, limits: DeliveryLimits, locks: OutboxLocks = .standalone, receiver: (@Sendable (Outgoing) -> Void)? = nil
    ) {
        self.id = id
        self.outbox = Outbox(limits: limits)
        self.stripe = locks.stripe(for: id)
        self.receiver = receiver
    }

    @inline(__always)
    private func withOutbox<Result>(_ body: (inout Outbox) throws -> Result) rethrows -> Result {
        stripe.lock.lock()
        let before = outbox.bytes
        defer {
            stripe.queuedBytes += outbox.bytes - before
            stripe.lock.unlock()
        }
        return try body(&outbox)
    }

    /// What appending did, for the one who appended: wake the transport, log a shed,
    /// close an overloaded connection.
    package struct Report: Equatable {
        /// The outbox had nothing waiting before: the transport must be told.
        package var wake = false
        /// Patches and pulses shed, and the streams that started lagging.
        package var shedMessages = 0
        package var laggingStreams: [StreamID] = []
        /// Close with 1013.
        package var overloaded = false

        package mutating func add(_ outcome: Outbox.AppendOutcome) {
            switch outcome {
            case .queued(let wasEmpty): wake = wake || wasEmpty
            case .dropped: break
            case .shed(let count, let streams):
                shedMessages += count
                laggingStreams += streams
            case .overloaded: overloaded = true
            }
        }
    }

    /// The connection closed, or is closing (overloaded): nothing more reaches it.
    package var isClosed: Bool {
        withOutbox { $0.isClosed }
    }

    package func append(_ entry: Outgoing, pressure: Bool = false) -> Report {
        var report = Report()
        report.add(withOutbox { $0.append(entry, pressure: pressure) })
        return report
    }

    package func append(_ entries: [Outgoing], pressure: Bool = false) -> Report {
        withOutbox { outbox in
            var report = Report()
            for entry in entries {
                report.add(outbox.append(entry, pressure: pressure))
            }
            return report
        }
    }

    package func choke() -> Report {
        var report = Report()
        if let outcome = withOutbox({ $0.choke() }) {
            report.add(outcome)
        }
        return report
    }

    /// The next message, whether it was the last one waiting, and the resync owed
    /// (`Outbox.pull`), under one lock.
    package func pull() -> Outbox.Pull {
        withOutbox { $0.pull() }
    }

    /// Drops what waits and takes nothing more.
    package func close() {
        withOutbox { $0.close() }
    }

    /// Payload bytes waiting.
    package var queuedBytes: Int {
        withOutbox { $0.bytes }
    }

    /// What was handed to the socket so far.
    package var written: WrittenCounts {
        withOutbox { $0.written }
    }
}

/// The locks of a set of outboxes (a `Delivery`'s), 256 stripes shared by connection number,
/// each with the payload bytes its outboxes hold.
package final class OutboxLocks: Sendable {
    package final class Stripe: @unchecked Sendable {
        let lock = Lock()
        /// Payload bytes waiting in the outboxes of this stripe; under `lock`.
        var queuedBytes = 0
    }

    /// The locks of outputs made outside a `Delivery` (in-process callers, tests).
    package static let standalone = OutboxLocks()

    private let stripes: [Stripe] = (0..<256).map { _ in Stripe() }

    package init() {}

    func stripe(for id: ConnectionID) -> Stripe {
        stripes[Int(truncatingIfNeeded: id.rawValue % UInt64(stripes.count))]
    }

    /// Payload bytes waiting over all the outboxes: 256 reads, whatever their number.
    package var queuedBytes: Int {
        stripes.reduce(0) { total, stripe in
            stripe.lock.withLock { total + stripe.queuedBytes }
        }
    }
}
