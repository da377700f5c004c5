/// One version to commit: its RFC 6902 operations, from which every node writes the same
/// patch frame, and the reply to the action that caused it when there is one.
public struct CommitEntry: Sendable, Hashable {
    /// The version this patch brings the state to.
    public var version: Int
    /// The operations, a JSON array.
    public var patch: [UInt8]
    /// When the patch spans several versions (a merged burst), the version it applies to.
    public var base: Int?
    /// The action's idempotent id: its reply is remembered for `dedupeWindow`.
    public var actionID: String?
    /// The reply (the encoded `ack`) delivered to the action's sender before the patch.
    public var reply: [UInt8]?
    /// Who the reply is for (the origin node and session), opaque to this module.
    public var replyTo: [UInt8]?

    /// An entry for `version` carrying `patch`.
    public init(
        version: Int,
        patch: [UInt8],
        base: Int? = nil,
        actionID: String? = nil,
        reply: [UInt8]? = nil,
        replyTo: [UInt8]? = nil
    ) {
        self.version = version
        self.patch = patch
        self.base = base
        self.actionID = actionID
        self.reply = reply
        self.replyTo = replyTo
    }
}

/// What a fenced write (commit, reply, snapshot, new epoch) found.
public enum CommitOutcome: Sendable, Hashable {
    /// Written; `version` is the instance's version now.
    case committed(version: Int)
    /// The lease is no longer this token: another node owns the instance (or nobody, when
    /// `holder` is nil). Stop applying actions to it.
    case lostLease(holder: LeaseHolder?)
    /// The instance is at another version than expected: `current`.
    case versionConflict(current: Int)
    /// The instance is in another epoch: `current`.
    case epochMismatch(current: String)
    /// `…:meta` is gone: Redis lost the instance's data. Start a new epoch.
    case instanceMissing
    /// The epoch was started in another history line than the server's (`line`): Redis
    /// failed over or restarted since, and may lack the epoch's last writes. Start a new
    /// epoch from what it holds; never continue this one.
    case failedOver(line: String)

    /// Parses the `{status, detail}` pair the fenced scripts return.
    init(reply: RedisValue, _ what: String) throws(RedisError) {
        let parts = try reply.expectArray(what)
        guard parts.count >= 2 else { throw RedisError(.unexpectedReply, "\(what): \(reply)") }
        let detail = try parts[1].expectText(what)
        switch try parts[0].expectText(what) {
        case "ok": self = .committed(version: try parts[1].expectInteger(what))
        case "lease": self = .lostLease(holder: LeaseHolder(token: detail, remaining: nil))
        case "version": self = .versionConflict(current: try parts[1].expectInteger(what))
        case "epoch": self = .epochMismatch(current: detail)
        case "missing": self = .instanceMissing
        case "line": self = .failedOver(line: detail)
        default: throw RedisError(.unexpectedReply, "\(what): \(reply)")
        }
    }
}
