/// A first-in first-out buffer that appends and removes at both ends in O(1), used for
/// per-connection outbound queues (which can hold thousands of entries under load).
struct RingBuffer<Element> {
    private var slots: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    var first: Element? { count == 0 ? nil : slots[head] }

    /// The element `offset` places after the first.
    subscript(offset: Int) -> Element {
        precondition(offset >= 0 && offset < count)
        return slots[(head + offset) % slots.count]!
    }

    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        if count == slots.count { grow() }
        head = (head - 1 + slots.count) % slots.count
        slots[head] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Keeps only the elements for which `isIncluded` is true, in order.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept: [Element?] = []
        kept.reserveCapacity(max(count, 16))
        while let element = popFirst() {
            if !shouldRemove(element) { kept.append(element) }
        }
        count = kept.count
        head = 0
        kept.append(contentsOf: repeatElement(nil, count: max(0, 16 - kept.count)))
        slots = kept
    }

    mutating func removeAll() {
        slots = []
        head = 0
        count = 0
    }

    private mutating func grow() {
        let newCapacity = max(16, slots.count * 2)
        var grown: [Element?] = []
        grown.reserveCapacity(newCapacity)
        for index in 0..<count {
            grown.append(slots[(head + index) % slots.count])
        }
        grown.append(contentsOf: repeatElement(nil, count: newCapacity - count))
        slots = grown
        head = 0
    }
}
