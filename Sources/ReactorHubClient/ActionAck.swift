/// The server's `ack` of an action.
public struct ActionAck: Sendable, Hashable {
    /// The state version when the action was accepted (the patches it causes come after).
    public var version: Int
    /// The server had seen this action's `id` before and did not apply it again: this is
    /// the answer it gave the first time (the answer to a resend after a lost connection).
    public var duplicate: Bool

    /// Creates an ack.
    public init(version: Int, duplicate: Bool = false) {
        self.version = version
        self.duplicate = duplicate
    }
}
