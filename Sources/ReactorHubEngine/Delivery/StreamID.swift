/// Identifies one instance's stream of updates in the delivery policy, so that a slow
/// reader's updates of one instance can be shed and resynchronised without touching the
/// others. Assigned by the hub, never reused while the hub runs.
package struct StreamID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt64

    package var description: String { "s\(rawValue)" }
}
