package import ReactorHubProtocol
import ReactorHubLocking

/// One connection's outbox, shared by whoever sends to it (instances on their serial
/// contexts, the hub on the service thread) and the transport that pulls from it.
///
/// A caller inside the process (an HTTP request waiting for its action's reply) has a
/// `receiver` instead: what is sent to it is handed over at once, and nothing queues.
///
/// The outbox is guarded by one of `stripes`, locks shared by many connections (chosen by
/// the connection's number), not by a lock of its own: a `Locked` per connection cost three
/// allocations, about 110 bytes per connection (BENCHMARKS.md, "Idle memory per
/// connection"). A lock is held only inside one outbox's operation, never while taking
/// another, so sharing one cannot deadlock.
package final class ConnectionOutput: @unchecked Sendable {
    package let id: ConnectionID
    /// Reached only through `withOutbox`, under the connection's stripe lock.
    private var outbox: Outbox
    /// Takes everything sent to a caller inside the process; nil for a transport's connection.
    package let receiver: (@Sendable (Outgoing) -> Void)?

    /// The locks of all outboxes: connection n takes `stripes[n % stripes.count]`.
    private static let stripes: [Lock] = (0..<256).map { _ in Lock() }

    package init(id: ConnectionID, limits: DeliveryLimits, receiver: (@Sendable (Outgoing) -> Void)? = nil) {
        self.id = id
        self.outbox = Outbox(limits: limits)
        self.receiver = receiver
    }

    @inline(__always)
    private func withOutbox<Result>(_ body: (inout Outbox) throws -> Result) rethrows -> Result {
        let lock = Self.stripes[Int(truncatingIfNeeded: id.rawValue & 255)]
        lock.lock()
        defer { lock.unlock() }
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

    package func next() -> OutboundMessage? {
        withOutbox { $0.next() }
    }

    package func choke() -> Report {
        var report = Report()
        if let outcome = withOutbox({ $0.choke() }) {
            report.add(outcome)
        }
        return report
    }

    package func takeResyncRequest() -> [StreamID] {
        withOutbox { $0.takeResyncRequest() }
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
