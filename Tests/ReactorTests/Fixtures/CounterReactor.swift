import Reactor

/// ReactorKit's CR fixture: a counter whose effect errors or completes after its mutation when
/// the state is a chosen value.
final class CounterReactor: Reactor {
    enum Action: Sendable {
        case increase
        /// `mutate` throws an ordinary error: a failure, not a refusal.
        case fail
        case refuse
    }

    typealias Mutation = Void
    typealias State = Int

    let initialState = 0
    private let stateForTriggerError: Int?
    private let stateForTriggerCompleted: Int?

    init(stateForTriggerError: Int? = nil, stateForTriggerCompleted: Int? = nil) {
        self.stateForTriggerError = stateForTriggerError
        self.stateForTriggerCompleted = stateForTriggerCompleted
    }

    func mutate(action: Action) throws -> Effect<Void> {
        switch action {
        case .increase:
            if currentState == stateForTriggerError {
                return .run { send in
                    await send(())
                    throw TestError()
                }
            }
            if currentState == stateForTriggerCompleted {
                return .concat(.just(()), .run { _ in })
            }
            return .just(())
        case .fail:
            throw TestError()
        case .refuse:
            throw ActionRefusal("refused")
        }
    }

    func reduce(state: Int, mutation: Void) -> Int {
        state + 1
    }
}
