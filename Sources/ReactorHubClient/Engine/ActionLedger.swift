import ReactorHubJSON

/// The actions sent and not yet answered, in the order they were dispatched, and the
/// resend rule of PROTOCOL.md ("Actions that are safe to resend"): an action whose answer
/// was lost with the connection is sent again once, with the same `id`, after its reactor
/// is joined again; lost a second time, it fails. A value type: the engine carries out
/// what it decides.
struct ActionLedger: Sendable {
    struct Entry: Sendable, Equatable {
        let id: String
        let address: String
        let payload: JSONValue
        /// The `ref` of the send in flight; nil while waiting to be (re)sent.
        var ref: Int?
        /// The connection that send went out on.
        var connection: Int?
        /// How many times it was sent.
        var sends = 0
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func add(id: String, address: String, payload: JSONValue) {
        entries.append(Entry(id: id, address: address, payload: payload))
    }

    /// The actions of `address` waiting to be sent, oldest first.
    func unsent(for address: String) -> [Entry] {
        entries.filter { $0.address == address && $0.ref == nil }
    }

    mutating func markSent(id: String, ref: Int, connection: Int) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        entries[index].ref = ref
        entries[index].connection = connection
        entries[index].sends += 1
    }

    /// The action answered by a reply with `ref`, removed.
    mutating func answer(ref: Int) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.ref == ref }) else { return nil }
        return entries.remove(at: index)
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
