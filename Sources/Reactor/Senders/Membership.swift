/// A connection joined or left an instance: what a reactor that keeps a member list hears
/// (`Reactor.action(for:)` or `Reactor.mutation(for:)`), at most once per connection per
/// instance. A resume of the same connection is no new join; a dropped connection leaves.
public struct Membership: Sendable, Hashable {
    /// Which way.
    public enum Change: Sendable, Hashable {
        /// The connection joined the instance.
        case joined
        /// It left, closed, or was dropped.
        case left
    }

    /// Joined or left.
    public var change: Change
    /// Who: the connection and its user.
    public var member: Sender

    /// A membership change.
    public init(_ change: Change, _ member: Sender) {
        self.change = change
        self.member = member
    }
}
