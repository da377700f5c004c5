public import ReactorHubJSON

/// One state of a remote reactor as the client published it: after a snapshot, a patch,
/// a resume, a pulse, or a change of this client's pending actions.
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
        /// This client's pending actions changed (one was dispatched, refused, given up, or
        /// reached by the confirmed state without a patch): the shown state was recomputed on
        /// the same confirmed state.
        case prediction
    }

    /// Increases by one with every revision of a reactor the client holds.
    public let number: UInt64
    /// The shown state: the confirmed state with this client's pending actions predicted on
    /// top, in sending order; exactly `confirmedState` when nothing is pending. JSON, as the
    /// server sends states (without pulses).
    public let state: JSONValue
    /// The server's state at `version`, byte for byte.
    public let confirmedState: JSONValue
    /// This client's actions on the reactor that are queued, sent, or acknowledged with their
    /// `applied` version not reached yet, predicted or not.
    public let pendingCount: Int
    /// The confirmed state's version.
    public let version: Int
    /// The instance's epoch.
    public let epoch: String
    /// The pulses received since the join, by name.
    public let pulses: [String: FiredPulse]
    /// What produced this revision.
    public let cause: Cause

    /// Whether this client has an action pending here (so `state` may differ from
    /// `confirmedState`).
    public var isPredicted: Bool { pendingCount > 0 }
}
