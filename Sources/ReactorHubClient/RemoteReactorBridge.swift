import ReactorHubLocking
public import Reactor

/// A local `Reactor` that mirrors a remote one, for ReactorKit-style apps: its `State` is
/// the remote state, its actions go to the server, so a view binds to a
/// `ReactorRuntime(reactor: RemoteReactorBridge(remote))` exactly as to a local reactor:
/// `runtime.states`, `runtime.pulse(\.$alertMessage)`, `runtime.send(.increase)`.
///
/// Every remote state reaches the runtime as a mutation, so `currentState` and the
/// observers follow the server; pulses fire on the mirror because the remote states it
/// reads carry the pulse counts (`RemoteReactor`). States the runtime has not taken yet
/// are merged to the latest, as a slow view should see them. An action the server refuses
/// is reported on `refusals` (and logged by the runtime as the effect's error).
public final class RemoteReactorBridge<State: Decodable & Sendable, Action: Sendable>: Reactor {
    /// The only mutation: the remote reactor moved to this state.
    public enum Mutation: Sendable {
        /// The remote reactor's new state.
        case setState(State)
    }

    /// The remote reactor behind the bridge.
    public let remote: RemoteReactor<State, Action>
    public let initialState: State
    private let refusalsContinuation: AsyncStream<HubClientError>.Continuation
    /// The refusals of actions sent through the bridge, in the order they came.
    public let refusals: AsyncStream<HubClientError>

    /// Mirrors `remote`, starting from its current state.
    public init(_ remote: RemoteReactor<State, Action>) {
        self.remote = remote
        self.initialState = remote.currentState
        (refusals, refusalsContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    deinit {
        refusalsContinuation.finish()
    }

    /// Sends the action to the server; the state changes when the server's patches come.
    public func mutate(action: Action) -> Effect<Mutation> {
        let remote = remote
        let refusals = refusalsContinuation
        return .run { _ in
            do {
                try await remote.send(action)
            } catch let error as HubClientError {
                refusals.yield(error)
                throw error
            }
        }
    }

    public func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .setState(let remoteState):
            return remoteState
        }
    }

    /// The remote states, as mutations.
    public var externalMutations: Effect<Mutation> {
        let states = remote.states
        return .run { send in
            for await state in states {
                await send(.setState(state))
            }
        }
    }
}
