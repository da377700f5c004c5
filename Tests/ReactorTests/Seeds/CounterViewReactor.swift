import Reactor

/// The counter of seed 004 (ReactorKit's Counter example with an alert pulse), ported line for
/// line; the delay comes from `init` so that the shipped kind can configure it.
final class CounterViewReactor: Reactor {
    // Action is an user interaction
    enum Action: Sendable {
        case increase
        case decrease
    }

    // Mutate is a state manipulator which is not exposed to a view
    enum Mutation: Sendable {
        case increaseValue
        case decreaseValue
        case setLoading(Bool)
        case setAlertMessage(String)
    }

    // State is a current view state
    struct State: Sendable, Equatable {
        var value: Int
        var isLoading: Bool
        @Pulse var alertMessage: String?
    }

    let initialState: State
    private let delay: Duration

    init(delay: Duration = .milliseconds(500)) {
        self.delay = delay
        self.initialState = State(
            value: 0, // start from 0
            isLoading: false
        )
    }

    // Action -> Mutation
    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case .increase:
            return .concat([
                .just(.setLoading(true)),
                Effect.just(.increaseValue).delay(delay),
                .just(.setLoading(false)),
                .just(.setAlertMessage("increased!")),
            ])

        case .decrease:
            return .concat([
                .just(.setLoading(true)),
                Effect.just(.decreaseValue).delay(delay),
                .just(.setLoading(false)),
                .just(.setAlertMessage("decreased!")),
            ])
        }
    }

    // Mutation -> State
    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .increaseValue:
            state.value += 1
        case .decreaseValue:
            state.value -= 1
        case .setLoading(let bool):
            state.isLoading = bool
        case .setAlertMessage(let string):
            state.alertMessage = string
        }

        return state
    }
}
