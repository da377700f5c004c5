/// An instance's state at one version, written by the owner every N versions and at
/// shutdown, read on takeover and when a follower starts.
public struct InstanceSnapshot: Sendable, Hashable {
    /// The epoch of the state.
    public var epoch: String
    /// The version of the state.
    public var version: Int
    /// The state's JSON bytes.
    public var state: [UInt8]

    /// A snapshot of `state` at `epoch`/`version`.
    public init(epoch: String, version: Int, state: [UInt8]) {
        self.epoch = epoch
        self.version = version
        self.state = state
    }
}

/// What Redis holds of an instance: its last committed version, the latest snapshot and
/// the log entries after it. Snapshot + tail give the state at `version`.
public struct InstanceRecord: Sendable, Hashable {
    /// The instance's epoch.
    public var epoch: String
    /// The last committed version.
    public var version: Int
    /// The latest snapshot of this epoch; nil when there is none.
    public var snapshot: InstanceSnapshot?
    /// The log entries after the snapshot, in order (patches and replies).
    public var tail: [LogEntry]

    /// Whether the snapshot and the tail's patches reach `version` without a gap, so that
    /// the state at `version` can be rebuilt. When false, start a new epoch.
    public var isComplete: Bool {
        guard let snapshot else { return false }
        var reached = snapshot.version
        for entry in tail where entry.isPatch {
            guard entry.effectiveBase == reached else { return false }
            reached = entry.version
        }
        return reached == version
    }
}

/// What the log holds after a version a client or follower has.
public enum InstanceHistory: Sendable, Hashable {
    /// Every entry after the version, in order; the patches chain from it to the current
    /// version (empty when nothing is missing).
    case held([LogEntry])
    /// Not enough history (trimmed past it, another epoch, or a version ahead of the
    /// instance): answer with a snapshot. `epoch`/`version` are the instance's now.
    case notHeld(epoch: String, version: Int)
    /// Redis holds nothing of this instance.
    case missing
}
