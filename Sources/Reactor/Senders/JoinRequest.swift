/// A join a reactor's own rule may refuse (`Reactor.refusal(of:)`): who asks, and the
/// instance's state as committed, read only when the rule asks for it.
public struct JoinRequest<State: Sendable>: Sendable {
    /// Who joins.
    public let member: Sender
    private let read: @Sendable () -> State?

    /// A join of `member`; `state` reads the committed state (nil when it cannot).
    public init(member: Sender, state: @escaping @Sendable () -> State?) {
        self.member = member
        self.read = state
    }

    /// The instance's state as committed (nil when it could not be read back).
    public var state: State? {
        read()
    }
}
