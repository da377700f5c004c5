import ReactorHubLocking

/// Runs a reactor's own `mutate` and `reduce` outside any runtime, to predict what an action
/// does at once: the pipeline of `ReactorRuntime` (`transform(action:)`, `mutate(action:)`,
/// then for each immediate mutation `transform(mutation:)`, `reduce`, `transform(state:)`),
/// stopped where the effect first waits. A client that shares the kind's code with the server
/// shows the result before the server answers (CLIENTS.md "Prediction").
///
/// Only the immediate mutations run (`Effect.forEachImmediateMutation(_:)`): `delay` and
/// `run` parts, and everything after them in a `concat`, never do, so no network call, timer
/// or other side effect of an effect happens here. `externalMutations` is never started.
/// While a prediction runs, `reactor.currentState` answers the state predicted so far (as
/// it answers the runtime's state on the server), so a `mutate` that validates against
/// `currentState` refuses here what the server would refuse from the same state.
///
/// The predictor owns its reactor: make one for it (a reactor run by a `ReactorRuntime`
/// cannot also be a predictor's, and the other way round). Predictions are serialized.
public final class ImmediatePredictor<R: Reactor>: Sendable {
    /// The reactor whose code predicts.
    public let reactor: R
    private let published: PublishedState<R.State>
    private let lock = Lock()

    /// A predictor running `reactor`, which no runtime may run.
    public init(reactor: R) {
        self.reactor = reactor
        self.published = PublishedState(reactor.initialState)
        RuntimeRegistry.register(published, for: reactor)
    }

    deinit {
        RuntimeRegistry.unregister(published, for: reactor)
    }

    /// The state `action` leaves once its immediate mutations are reduced on `state`.
    ///
    /// `state` is taken as the reduced state (a server sends `transform(state:)` of it,
    /// which is the same for reactors that keep the default). `sender` is who the server
    /// will see sending it (`mutate(action:from:)`: the app's own user). Throws what
    /// `mutate` throws: an `ActionRefusal` says the server will most likely refuse the
    /// action too.
    public func predict(_ action: R.Action, from state: R.State, sender: Sender? = nil) throws -> R.State {
        try lock.withLock {
            published.set(state)
            defer { published.set(reactor.initialState) }
            var reduced = state
            let effect = try reactor.mutate(action: reactor.transform(action: action), from: sender)
            effect.forEachImmediateMutation { mutation in
                reduced = reactor.reduce(state: reduced, mutation: reactor.transform(mutation: mutation))
                published.set(reactor.transform(state: reduced))
            }
            return reactor.transform(state: reduced)
        }
    }
}
