import Reactor
import ReactorHubServer

/// A kind whose `reduce` traps on a negative count: what a kind must never do. The daemon
/// names the instance and the action on standard error, then ends.
final class TrapReactor: Reactor {
    enum Action: Decodable, Sendable {
        case add(count: Int)
    }

    struct State: Codable, Sendable, Equatable {
        var items: [Int] = []
    }

    let initialState = State()

    func reduce(state: State, mutation: Action) -> State {
        var state = state
        switch mutation {
        case .add(let count):
            // `0..<count` traps for a negative count.
            state.items += Array(0..<count)
        }
        return state
    }
}

await ReactorHub.main { @Sendable kinds in
    try kinds.register("trap") { TrapReactor() }
}
