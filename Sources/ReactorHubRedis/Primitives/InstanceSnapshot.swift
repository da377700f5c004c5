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
    /// The log entries after the snapshot, in order (patches and replies), confirmed or not.
    public var tail: [LogEntry]
    /// The history line the epoch was started in; nil for an epoch older than lines.
    public var line: String?
    /// The history line of the server that answered.
    public var serverLine: String
    /// The last entry subscribers may see; nil for a log older than confirmations (all).
    public var confirmed: LogPosition?

    /// Whether Redis failed over (or restarted) since the epoch began: it may lack the
    /// epoch's last writes, so the epoch must not go on (a new one starts from what it holds).
    public var isFromAnotherLine: Bool {
        line != serverLine
    }

    /// Whether entries were written that subscribers may not see yet (their `WAIT` did not
    /// confirm them): a new owner confirms them first.
    public var hasUnconfirmed: Bool {
        guard let confirmed else { return false }
        return tail.last.map { $0.position > confirmed } ?? false
    }

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
