public import Reactor

/// The seeds' counter (ReactorKit's Counter example, seeds 000 and 004), shared: plus and
/// minus set `isLoading`, change the value after `delay`, clear `isLoading` and pulse an
/// alert. Actions overlap (their effects merge), exactly as in the seed.
public final class CounterReactor: Reactor {
    // Action is an user interaction
    public enum Action: Codable, Sendable, Equatable {
        case increase
        case decrease
    }

    // Mutate is a state manipulator which is not exposed to a view
    public enum Mutation: Sendable {
        case increaseValue
        case decreaseValue
        case setLoading(Bool)
        case setAlertMessage(String)
    }

    // State is a current view state
    public struct State: Codable, Sendable, Equatable {
        public var value: Int
        public var isLoading: Bool
        @Pulse public var alertMessage: String?
    }

    public let initialState: State
    private let delay: Duration

    /// Creates a counter whose value changes `delay` after each action (500 ms in the seed).
    public init(delay: Duration = .milliseconds(500)) {
        self.initialState = State(
            value: 0, // start from 0
            isLoading: false
        )
        self.delay = delay
    }

    // Action -> Mutation
    public func mutate(action: Action) -> Effect<Mutation> {
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
    public func reduce(state: State, mutation: Mutation) -> State {
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
