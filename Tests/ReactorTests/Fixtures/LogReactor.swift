import ReactorHubLocking
import Reactor
/// ReactorKit's re-entrancy fixture: each action reduces an enter and an exit mutation; `.b` can
/// be sent from inside `reduce` through `followUp`.
final class LogReactor: Reactor {
    enum Action: Sendable {
        case a
        case b
    }

    enum Mutation: Sendable {
        case enterA
        case exitA
        case enterB
        case exitB
    }

    struct State: Sendable, Equatable {
        var log: [String] = []
    }

    let initialState = State()
    /// Sends an action to the runtime from inside `reduce`, once, on `enterA`.
    let followUp = Locked<(@Sendable (Action) -> Void)?>(nil)

    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case .a: .just(.enterA, .exitA)
        case .b: .just(.enterB, .exitB)
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var newState = state
        switch mutation {
        case .enterA:
            newState.log.append("enter A")
            let send = followUp.withLock { followUp in
                defer { followUp = nil }
                return followUp
            }
            send?(.b)
        case .exitA:
            newState.log.append("exit A")
        case .enterB:
            newState.log.append("enter B")
        case .exitB:
            newState.log.append("exit B")
        }
        return newState
    }
}

/// ReactorKit's routing fixture.
final class RouteReactor: Reactor {
    enum Action: Sendable {
        case dismiss
        case present(String)
    }

    enum Mutation: Sendable {
        case setRoute(String?)
    }

    struct State: Sendable, Equatable {
        var route: String?
    }

    let initialState = State(route: "initial")

    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case .dismiss: .just(.setRoute(nil))
        case .present(let route): .just(.setRoute(route))
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var newState = state
        switch mutation {
        case .setRoute(let route):
            newState.route = route
        }
        return newState
    }
}
