/// Identifies one instance's stream of updates in the delivery policy, so that a slow
/// reader's updates of one instance can be shed and resynchronised without touching the
/// others. Assigned by the hub, never reused while the hub runs.
struct StreamID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    var description: String { "s\(rawValue)" }
}
