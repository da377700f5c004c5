/// Whether a client or subscriber currently has a working connection to Redis.
public enum RedisLinkState: Sendable, Hashable {
    /// Connected; commands are being served.
    case up
    /// Not connected (not yet, or the link dropped); the error says why. Commands fail
    /// with `.connection` until the link is back.
    case down(RedisError)

    /// Whether this is `.up`.
    public var isUp: Bool {
        self == .up
    }
}
