import Reactor

/// ReactorKit's TR fixture: every stage appends its name.
final class TransformingReactor: Reactor {
    typealias Action = [String]
    typealias Mutation = [String]
    typealias State = [String]

    let initialState: State = []

    func transform(action: Action) -> Action {
        action + ["transformedAction"]
    }

    func mutate(action: Action) -> Effect<Mutation> {
        .just(action + ["mutation"])
    }

    func transform(mutation: Mutation) -> Mutation {
        mutation + ["transformedMutation"]
    }

    func reduce(state: State, mutation: Mutation) -> State {
        state + mutation + ["reduce"]
    }

    func transform(state: State) -> State {
        state + ["transformedState"]
    }
}

extension TransformingReactor {
    static let stateAfterOneAction = [
        "action", "transformedAction", "mutation", "transformedMutation", "reduce", "transformedState",
    ]
}
