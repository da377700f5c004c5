/// Deadlines by key, earliest first: a binary min-heap with one live entry per key.
///
/// Setting a key again replaces its deadline; removing it forgets it. Both leave the old
/// heap entry in place (it is skipped when it comes up), so neither searches the heap; the
/// heap is rebuilt from the live entries once it holds more than twice as many, so entries
/// of keys removed or set again long before their deadline (connections closed days before
/// their token's `exp`, tokens refreshed every minute) do not pile up.
struct DeadlineQueue<Key: Hashable, Value> {
    private struct Entry {
        var deadline: UInt64
        var key: Key
        var generation: UInt64
    }

    private var heap: [Entry] = []
    private var live: [Key: (generation: UInt64, deadline: UInt64, value: Value)] = [:]
    private var nextGeneration: UInt64 = 0

    /// Keys with a deadline.
    var count: Int { live.count }

    /// Heap entries held, live or not (at most twice `count`, plus a few).
    var storedEntries: Int { heap.count }

    /// The earliest live deadline, or nil when there is none.
    mutating func earliest() -> UInt64? {
        discardStaleTop()
        return heap.first?.deadline
    }

    /// Gives `key` the deadline `deadline` with `value`, replacing any it had.
    mutating func set(_ key: Key, deadline: UInt64, value: Value) {
        nextGeneration += 1
        live[key] = (nextGeneration, deadline, value)
        push(Entry(deadline: deadline, key: key, generation: nextGeneration))
        compactIfSparse()
    }

    /// Forgets `key`'s deadline; returns whether it had one.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard live.removeValue(forKey: key) != nil else { return false }
        compactIfSparse()
        return true
    }

    /// Removes and returns the keys whose deadline is at or before `now`, earliest first.
    mutating func removeDue(at now: UInt64) -> [(key: Key, value: Value)] {
        var due: [(key: Key, value: Value)] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let entry = live[top.key], entry.generation == top.generation {
                live[top.key] = nil
                due.append((top.key, entry.value))
            }
        }
        return due
    }

    private mutating func discardStaleTop() {
        while let top = heap.first, live[top.key]?.generation != top.generation {
            popTop()
        }
    }

    /// Rebuilds the heap from the live entries once more than half of it is dead.
    private mutating func compactIfSparse() {
        guard heap.count > 64 && heap.count > 2 * live.count else { return }
        rebuild()
    }

    private mutating func rebuild() {
        heap = live.map { Entry(deadline: $0.value.deadline, key: $0.key, generation: $0.value.generation) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
