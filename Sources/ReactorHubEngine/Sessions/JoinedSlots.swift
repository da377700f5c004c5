import ReactorHubProtocol

/// The instances a session joined, by address: an array searched in order, read like a
/// dictionary.
///
/// Most sessions join one reactor or a few (at most `limits.maxJoinsPerConnection`): a
/// dictionary of one entry took 150 bytes per connection, this array 48 (BENCHMARKS.md,
/// "Idle memory per connection"); none takes nothing.
struct JoinedSlots: Sequence {
    /// Each slot knows its address: it is the key.
    private var slots: [InstanceSlot] = []

    init() {}

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    /// The joined addresses, in the order joined.
    var keys: [ReactorAddress] { slots.map(\.address) }
    /// The joined slots, in the order joined.
    var values: [InstanceSlot] { slots }

    /// The slot joined at `address`; setting nil leaves it.
    subscript(address: ReactorAddress) -> InstanceSlot? {
        get {
            slots.first { $0.address == address }
        }
        set {
            if let index = slots.firstIndex(where: { $0.address == address }) {
                if let newValue {
                    slots[index] = newValue
                } else {
                    slots.remove(at: index)
                }
            } else if let newValue {
                precondition(newValue.address == address, "a slot is joined under its own address")
                slots.append(newValue)
            }
        }
    }

    /// Leaves `address`; the slot that was joined there.
    @discardableResult
    mutating func removeValue(forKey address: ReactorAddress) -> InstanceSlot? {
        guard let index = slots.firstIndex(where: { $0.address == address }) else { return nil }
        return slots.remove(at: index)
    }

    func makeIterator() -> some IteratorProtocol<(key: ReactorAddress, value: InstanceSlot)> {
        slots.lazy.map { (key: $0.address, value: $0) }.makeIterator()
    }
}
