import ReactorHubLocking
package import ReactorHubProtocol
package import ReactorHubStore

/// The in-process log of a single daemon's instance (a cluster of one): a burst is
/// committed once the `StateStore` has it, at once, or with durable acks
/// (`persistence.durableAcks`) once the store says the version is on disk. Only then does
/// the view deliver it, so nothing that reveals a version (an ack, a patch, a snapshot)
/// leaves before that version is durable, and a crash never loses a version a client saw.
package final class LocalLog: InstanceLog {
    /// Bursts waiting for durability, in order.
    package struct Waiting {
        package var items: [(records: [LogRecord], version: Int)] = []
        package var durable: Int
        /// The version the last item waits for (a reply on its own waits behind it).
        package var last: Int
    }

    package let view: InstanceView
    package let address: ReactorAddress
    package let epoch: String
    package let store: any StateStore
    package let keepPatches: Int
    package let keepBytes: Int
    package let durableAcks: Bool
    private let waiting: Locked<Waiting>

    package init(view: InstanceView, address: ReactorAddress, epoch: String, version: Int, context: ReactorKind.InstanceContext) {
        self.view = view
        self.address = address
        self.epoch = epoch
        self.store = context.store
        self.keepPatches = context.historyCapacity
        self.keepBytes = context.historyBytes
        self.durableAcks = context.durableAcks
        self.waiting = Locked(Waiting(durable: version, last: version))
    }

    /// Nothing is waiting for the store.
    package var isSettled: Bool {
        waiting.withLock { $0.items.isEmpty }
    }

    package func append(_ burst: LogBurst) {
        for record in burst.records {
            guard case .patch(let frame, let state?, _) = record else { continue }
            store.record(StoredChange(
                address: address, epoch: epoch, version: frame.version, state: state,
                patch: StoredPatch(version: frame.version, frame: frame.message.withBytes { Array($0) }),
                keepPatches: keepPatches, keepBytes: keepBytes
            ))
        }
        guard durableAcks else {
            view.apply(burst.records)
            return
        }
        enqueue(burst.records, version: burst.version)
        if burst.hasPatch {
            store.whenDurable(address, version: burst.version) { [weak self] in
                self?.release(durable: burst.version)
            }
        }
    }

    package func appendReply(_ reply: LoggedReply) {
        guard durableAcks else {
            view.apply([LogRecord.reply(reply)])
            return
        }
        waiting.withLock { waiting in
            waiting.items.append(([.reply(reply)], waiting.last))
            flush(&waiting)
        }
    }

    private func enqueue(_ records: [LogRecord], version: Int) {
        waiting.withLock { waiting in
            waiting.items.append((records, version))
            waiting.last = max(waiting.last, version)
            flush(&waiting)
        }
    }

    private func release(durable version: Int) {
        waiting.withLock { waiting in
            waiting.durable = max(waiting.durable, version)
            flush(&waiting)
        }
    }

    /// Applies, in order, the items whose version is durable. Under the lock, so that the
    /// owner's thread and the store's cannot overtake each other.
    private func flush(_ waiting: inout Waiting) {
        var released = 0
        while released < waiting.items.count, waiting.items[released].version <= waiting.durable {
            view.apply(waiting.items[released].records)
            released += 1
        }
        if released > 0 { waiting.items.removeFirst(released) }
    }
}
