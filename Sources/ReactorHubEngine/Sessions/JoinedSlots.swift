import ReactorHubProtocol

/// The instances a session joined, by address, read like a dictionary: none, one held
/// inline, or an array searched in order.
///
/// Most sessions join one reactor or a few (at most `limits.maxJoinsPerConnection`): a
/// dictionary of one entry took 150 bytes per connection, one slot inline takes none beyond
/// this one word (BENCHMARKS.md, "Idle memory per connection (issue 38)").
struct JoinedSlots: Sequence {
    /// Each slot knows its address: it is the key.
    private enum Storage {
        case none
        case one(InstanceSlot)
        case many([InstanceSlot])
    }

    private var storage = Storage.none

    init() {}

    var count: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let slots): slots.count
        }
    }

    var isEmpty: Bool { count == 0 }

    /// The joined slots, in the order joined.
    var values: [InstanceSlot] {
        switch storage {
        case .none: []
        case .one(let slot): [slot]
        case .many(let slots): slots
        }
    }

    /// The joined addresses, in the order joined.
    var keys: [ReactorAddress] { values.map(\.address) }

    /// The slot joined at `address`; setting nil leaves it.
    subscript(address: ReactorAddress) -> InstanceSlot? {
        get {
            switch storage {
            case .none: nil
            case .one(let slot): slot.address == address ? slot : nil
            case .many(let slots): slots.first { $0.address == address }
            }
        }
        set {
            guard let newValue else {
                removeValue(forKey: address)
                return
            }
            precondition(newValue.address == address, "a slot is joined under its own address")
            switch storage {
            case .none:
                storage = .one(newValue)
            case .one(let slot) where slot.address == address:
                storage = .one(newValue)
            case .one(let slot):
                storage = .many([slot, newValue])
            case .many(var slots):
                storage = .none
                if let index = slots.firstIndex(where: { $0.address == address }) {
                    slots[index] = newValue
                } else {
                    slots.append(newValue)
                }
                storage = .many(slots)
            }
        }
    }

    /// Leaves `address`; the slot that was joined there.
    @discardableResult
    mutating func removeValue(forKey address: ReactorAddress) -> InstanceSlot? {
        switch storage {
        case .none:
            return nil
        case .one(let slot):
            guard slot.address == address else { return nil }
            storage = .none
            return slot
        case .many(var slots):
            guard let index = slots.firstIndex(where: { $0.address == address }) else { return nil }
            storage = .none
            let removed = slots.remove(at: index)
            storage = slots.count == 1 ? .one(slots[0]) : .many(slots)
            return removed
        }
    }

    func makeIterator() -> some IteratorProtocol<(key: ReactorAddress, value: InstanceSlot)> {
        values.lazy.map { (key: $0.address, value: $0) }.makeIterator()
    }
}
