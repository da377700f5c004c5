public import ReactorHubJSON

/// One state of a remote reactor as the client published it: after a snapshot, a patch,
/// a resume or a pulse.
public struct Revision: Sendable {
    /// Why the revision exists.
    public enum Cause: String, Sendable, Hashable {
        /// A snapshot replaced the state (a join, a re-join, or the server's own resync).
        case snapshot
        /// A patch was applied.
        case patch
        /// A resume kept the state held before a reconnect.
        case resumed
        /// A pulse fired; the state is unchanged.
        case pulse
    }

    /// Increases by one with every revision of a reactor the client holds.
    public let number: UInt64
    /// The state as the server sends it (without pulses).
    public let state: JSONValue
    /// The state's version.
    public let version: Int
    /// The instance's epoch.
    public let epoch: String
    /// The pulses received since the join, by name.
    public let pulses: [String: FiredPulse]
    /// What produced this revision.
    public let cause: Cause
}
