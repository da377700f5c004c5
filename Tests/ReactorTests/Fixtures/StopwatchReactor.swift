import Reactor

/// ReactorKit's SW fixture: ticks every second from `.start` until `.stop`.
final class StopwatchReactor: Reactor {
    enum Action: Sendable, Equatable {
        case start
        case stop
    }

    typealias Mutation = Int
    typealias State = Int

    private enum TimerID {
        case tick
    }

    let initialState = 0
    /// Called when a ticking task ends, however it ends.
    private let onTickingEnded: @Sendable () -> Void

    init(onTickingEnded: @escaping @Sendable () -> Void = {}) {
        self.onTickingEnded = onTickingEnded
    }

    func mutate(action: Action) -> Effect<Int> {
        switch action {
        case .start:
            return .run { [onTickingEnded] send in
                defer { onTickingEnded() }
                while true {
                    try await send.clock.sleep(for: .seconds(1))
                    await send(1)
                }
            }
            .cancellable(id: TimerID.tick)
        case .stop:
            return .cancel(id: TimerID.tick)
        }
    }

    func reduce(state: Int, mutation: Int) -> Int {
        state + mutation
    }
}
