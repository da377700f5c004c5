import ReactorHubJSON

/// The client's pending actions, in the order they were dispatched: queued (not sent yet, or
/// waiting for a resend), sent and not answered, or acknowledged while the confirmed state
/// has not reached their `applied` version (CLIENTS.md "Prediction"). It keeps the resend rule
/// of PROTOCOL.md ("Actions that are safe to resend"): an action whose answer was lost with
/// the connection is sent again once, with the same `id`, after its reactor is joined again;
/// lost a second time, it fails. A value type: the engine carries out what it decides.
struct ActionLedger: Sendable {
    struct Entry: Sendable, Equatable {
        let id: String
        let address: String
        let payload: JSONValue
        /// The `ref` of the send in flight; nil while waiting to be (re)sent, and once answered.
        var ref: Int?
        /// The connection that send went out on.
        var connection: Int?
        /// How many times it was sent.
        var sends = 0
        /// Once acknowledged: the ack's `applied` and the epoch it counts in.
        var applied: (version: Int, epoch: String)?

        /// Waiting to be sent (first time, or again after a lost answer).
        var isWaiting: Bool { ref == nil && applied == nil }

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.id == rhs.id && lhs.address == rhs.address && lhs.payload == rhs.payload && lhs.ref == rhs.ref
                && lhs.connection == rhs.connection && lhs.sends == rhs.sends
                && lhs.applied?.version == rhs.applied?.version && lhs.applied?.epoch == rhs.applied?.epoch
        }
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func add(id: String, address: String, payload: JSONValue) {
        entries.append(Entry(id: id, address: address, payload: payload))
    }

    /// The actions of `address` waiting to be sent, oldest first.
    func unsent(for address: String) -> [Entry] {
        entries.filter { $0.address == address && $0.isWaiting }
    }

    /// How many actions, of every reactor, wait to be sent (the offline queue's length).
    var waitingCount: Int {
        entries.reduce(0) { $0 + ($1.isWaiting ? 1 : 0) }
    }

    /// Every pending action of `address`, in sending order: what the shown state replays.
    func pending(for address: String) -> [Entry] {
        entries.filter { $0.address == address }
    }

    mutating func markSent(id: String, ref: Int, connection: Int) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        entries[index].ref = ref
        entries[index].connection = connection
        entries[index].sends += 1
    }

    /// The action whose send in flight has `ref`.
    func sent(ref: Int) -> Entry? {
        entries.first { $0.ref == ref }
    }

    /// The action answered by a refusal with `ref`, removed.
    mutating func answer(ref: Int) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.ref == ref }) else { return nil }
        return entries.remove(at: index)
    }

    /// The action answered by an ack with `ref`: it stays pending until `confirm` sees the
    /// state of `epoch` reach `applied`.
    mutating func acknowledge(ref: Int, applied: Int, epoch: String) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.ref == ref }) else { return nil }
        entries[index].ref = nil
        entries[index].connection = nil
        entries[index].applied = (applied, epoch)
        return entries[index]
    }

    /// The confirmed state of `address` is at `version` of `epoch`: the acknowledged actions
    /// it includes (`applied` reached), and those acknowledged in another epoch (a history
    /// that is gone), are no longer pending; removed and returned.
    mutating func confirm(address: String, version: Int, epoch: String) -> [Entry] {
        var confirmed: [Entry] = []
        entries.removeAll { entry in
            guard entry.address == address, let applied = entry.applied,
                  applied.epoch != epoch || applied.version <= version
            else { return false }
            confirmed.append(entry)
            return true
        }
        return confirmed
    }

    /// Connection `number` is gone: what was in flight on it waits for a resend, unless it
    /// was already resent (or resending is off); those are removed and returned.
    mutating func connectionLost(_ number: Int, resends: Bool) -> [Entry] {
        var failed: [Entry] = []
        entries.removeAll { entry in
            guard entry.connection == number, entry.ref != nil else { return false }
            if !resends || entry.sends >= 2 {
                failed.append(entry)
                return true
            }
            return false
        }
        for index in entries.indices where entries[index].connection == number {
            entries[index].ref = nil
            entries[index].connection = nil
        }
        return failed
    }

    /// Removes and returns the actions of `address` (it was left).
    mutating func remove(address: String) -> [Entry] {
        let removed = entries.filter { $0.address == address }
        entries.removeAll { $0.address == address }
        return removed
    }

    /// Removes and returns the action `id` (its sender gave up).
    mutating func remove(id: String) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: index)
    }

    /// Removes and returns everything (the client closed).
    mutating func removeAll() -> [Entry] {
        defer { entries = [] }
        return entries
    }
}
