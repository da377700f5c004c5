/// A reactor turns actions into state, exactly as in ReactorKit: an action is transformed, turned
/// into an effect of mutations by `mutate(action:)`, and each mutation is folded into the state by
/// the pure `reduce(state:mutation:)`.
///
/// A reactor holds no pipeline of its own: a `ReactorRuntime` owns one reactor's pipeline and
/// serializes everything that touches its state. Every requirement has a default, so a reactor
/// implements only what it needs.
public protocol Reactor: AnyObject, Sendable {
    /// What a user (or a client of the hub) asks the reactor to do.
    associatedtype Action: Sendable
    /// A change to apply to the state; not exposed to clients.
    associatedtype Mutation: Sendable = Action
    /// The state clients see and stay in sync with.
    associatedtype State: Sendable

    /// The state before any mutation.
    var initialState: State { get }

    /// Rewrites an action before `mutate(action:)` sees it.
    func transform(action: Action) -> Action

    /// Returns the mutations an action causes, as an effect; throwing refuses the action.
    ///
    /// Throw `ActionRefusal` to refuse an invalid action with a message for the sender; any other
    /// error is reported as a failure and logged. This is the place for side effects.
    func mutate(action: Action) throws -> Effect<Mutation>

    /// Like `mutate(action:)`, knowing who sent the action: the user of the sender's
    /// verified token and its connection; nil for an action the server makes itself.
    ///
    /// Implement this one when the reactor needs the sender (the author of a message, a
    /// rule of its own: `throw ActionRefusal.forbidden("only the author may edit it")`). By
    /// default it calls `mutate(action:)`.
    func mutate(action: Action, from sender: Sender?) throws -> Effect<Mutation>

    /// The action a join or a leave becomes, for a reactor that keeps track of who is
    /// there; nil (the default): the reactor does not hear of it as an action. It then
    /// runs like any action, from the member.
    func action(for membership: Membership) -> Action?

    /// The mutation a join or a leave becomes, reduced at once; nil (the default): none.
    func mutation(for membership: Membership) -> Mutation?

    /// A rule of the reactor's own for joins, after the rights allowed one: nil lets the
    /// member join; a sentence refuses it (`forbidden`, with the sentence). The request's
    /// `state` is the instance's state as committed, read only when asked for. By default
    /// every join is allowed.
    func refusal(of join: JoinRequest<State>) -> String?

    /// Rewrites each mutation before it is reduced.
    func transform(mutation: Mutation) -> Mutation

    /// Folds one mutation into the state; pure, called one mutation at a time.
    func reduce(state: State, mutation: Mutation) -> State

    /// Rewrites each new state before `currentState` and observers see it.
    ///
    /// Its output is not fed back into `reduce(state:mutation:)`: the next reduce starts from the
    /// untransformed state, as in ReactorKit.
    func transform(state: State) -> State

    /// Mutations from outside the reactor's actions, such as a stream of global state.
    ///
    /// This is the port of ReactorKit's idiom of merging outside streams in
    /// `transform(mutation:)`. The runtime starts it once, when it is created.
    var externalMutations: Effect<Mutation> { get }
}

/// The defaults of every requirement, as in ReactorKit.
extension Reactor {
    /// Returns the action unchanged.
    public func transform(action: Action) -> Action {
        action
    }

    /// Produces no mutation (when `Mutation` differs from `Action`).
    public func mutate(action: Action) throws -> Effect<Mutation> {
        .none
    }

    /// Calls `mutate(action:)`: a reactor that does not ask who sent an action.
    public func mutate(action: Action, from sender: Sender?) throws -> Effect<Mutation> {
        try mutate(action: action)
    }

    /// Joins and leaves are not actions of this reactor.
    public func action(for membership: Membership) -> Action? {
        nil
    }

    /// Joins and leaves are not mutations of this reactor.
    public func mutation(for membership: Membership) -> Mutation? {
        nil
    }

    /// Every join the rights allow is allowed.
    public func refusal(of join: JoinRequest<State>) -> String? {
        nil
    }

    /// Returns the mutation unchanged.
    public func transform(mutation: Mutation) -> Mutation {
        mutation
    }

    /// Returns the state unchanged.
    public func reduce(state: State, mutation: Mutation) -> State {
        state
    }

    /// Returns the state unchanged.
    public func transform(state: State) -> State {
        state
    }

    /// No mutations from outside.
    public var externalMutations: Effect<Mutation> {
        .none
    }
}

extension Reactor where Mutation == Action {
    /// By default an action is its own mutation, as in ReactorKit.
    public func mutate(action: Action) throws -> Effect<Mutation> {
        .just(action)
    }
}
