/// Holds an instance's outgoing messages, in order, until the state versions they reveal
/// are durable (`persistence.durableAcks`): an ack leaves only once its action's effects
/// so far are on disk, and still before the patches that action caused.
struct DeliveryGate {
    enum Recipients {
        case one(ConnectionOutput)
        case many([ConnectionOutput])
    }

    struct Item {
        var entries: [Outgoing]
        var recipients: Recipients
        /// The version that must be durable first; nil for an ack whose action's
        /// synchronous effects have not all been reduced yet.
        var requiredVersion: Int?
    }

    private var items: [Item] = []
    private var head = 0
    private(set) var durableVersion: Int

    init(durableVersion: Int) {
        self.durableVersion = durableVersion
    }

    var isEmpty: Bool { head == items.count }

    mutating func enqueue(_ entries: [Outgoing], to recipients: Recipients, requiredVersion: Int?) {
        items.append(Item(entries: entries, recipients: recipients, requiredVersion: requiredVersion))
    }

    /// Gives every ack still waiting for its action's effects the version reached now.
    /// Returns whether there was one.
    mutating func settlePendingAcks(at version: Int) -> Bool {
        var settled = false
        for index in head..<items.count where items[index].requiredVersion == nil {
            items[index].requiredVersion = version
            settled = true
        }
        return settled
    }

    /// Records that `version` is durable and takes the items that may leave now, in order.
    mutating func release(durable version: Int) -> [Item] {
        durableVersion = max(durableVersion, version)
        var released: [Item] = []
        while head < items.count, let required = items[head].requiredVersion, required <= durableVersion {
            released.append(items[head])
            head += 1
        }
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return released
    }
}
