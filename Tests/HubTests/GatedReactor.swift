import ReactorHubLocking
import Reactor

/// A reactor whose `start` effect finishes only when the test opens its gate, so that a
/// test can hold an effect "running" for as long as it needs, whatever the machine's load.
final class GatedReactor: Reactor {
    enum Action: Decodable, Sendable { case start }
    enum Mutation: Sendable { case started, finished }
    struct State: Codable, Sendable, Equatable {
        var phase = "idle"
    }

    let initialState = State()
    let gate: Latch

    init(gate: Latch) {
        self.gate = gate
    }

    func mutate(action: Action) -> Effect<Mutation> {
        let gate = self.gate
        return .concat([
            .just(.started),
            .run { send in
                await gate.wait()
                await send(.finished)
            },
        ])
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .started: state.phase = "started"
        case .finished: state.phase = "finished"
        }
        return state
    }
}
