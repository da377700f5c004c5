/// The server's `ack` of an action.
public struct ActionAck: Sendable, Hashable {
    /// The state version when the action was accepted (the patches it causes come after).
    public var version: Int
    /// The version once the action's immediate mutations are applied (PROTOCOL.md
    /// "Acks"): from there on the server's state includes the action. It equals `version`
    /// when the action changed nothing at once.
    public var applied: Int
    /// The server had seen this action's `id` before and did not apply it again: this is
    /// the answer it gave the first time (the answer to a resend after a lost connection).
    public var duplicate: Bool

    /// Creates an ack; `applied` nil: `version` (a server that does not say).
    public init(version: Int, applied: Int? = nil, duplicate: Bool = false) {
        self.version = version
        self.applied = applied ?? version
        self.duplicate = duplicate
    }
}
