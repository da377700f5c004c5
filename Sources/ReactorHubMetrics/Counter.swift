import Synchronization

/// A monotonically increasing count: one relaxed atomic add per event, no lock, no
/// allocation (DESIGN.md: metrics cost nothing on the hot path).
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// Creates a counter at zero.
    public init() {}

    /// Adds `amount` (1 by default).
    @inlinable
    public func increment(by amount: Int = 1) {
        add(amount)
    }

    @usableFromInline
    func add(_ amount: Int) {
        value.add(amount, ordering: .relaxed)
    }

    /// The count so far.
    public var count: Int { value.load(ordering: .relaxed) }
}

/// Counters by one label whose values are fixed when it is made (close codes, error
/// codes, results): a bounded label set, so that a scrape never grows with what clients
/// send. Values outside the set are counted under `other`.
public final class LabeledCounter: Sendable {
    /// The label's name, e.g. `code`.
    public let label: String
    /// The label values, in the order they are rendered; the last is the catch-all.
    public let values: [String]
    private let counters: [Counter]
    private let index: [String: Int]

    /// Creates counters for `values` plus `other` (unless `values` has it already).
    public init(label: String, values: [String]) {
        let all = values.contains("other") ? values : values + ["other"]
        self.label = label
        self.values = all
        self.counters = all.map { _ in Counter() }
        self.index = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1, $0) })
    }

    /// Counts one event labelled `value` (or `other`).
    public func increment(_ value: String, by amount: Int = 1) {
        counters[index[value] ?? counters.count - 1].increment(by: amount)
    }

    /// The count of `value`.
    public func count(_ value: String) -> Int {
        counters[index[value] ?? counters.count - 1].count
    }

    /// Every value with its count, in order.
    public var counts: [(String, Int)] {
        zip(values, counters.map(\.count)).map { ($0, $1) }
    }
}
