@testable import Reactor
import Testing

/// ReactorKit 11 and 12: pulses count every assignment and fire once per assignment.
@Suite struct PulseTests {
    struct Counted {
        @Pulse var value = 0
    }

    @Test func everyAssignmentCountsEvenOfAnEqualValue() {
        var state = Counted()
        var counts: [UInt] = [state.$value.valueUpdatedCount]
        for value in [10, 20, 20, 20, 30, 30] {
            state.value = value
            counts.append(state.$value.valueUpdatedCount)
        }
        #expect(counts == [0, 1, 2, 3, 4, 5, 6])
        #expect(state.$value.valueUpdatedCount == 6)
    }

    @Test func updateCountWrapsFromMaxToZero() {
        var pulse = Pulse(wrappedValue: 0)
        pulse.valueUpdatedCount = UInt.max

        pulse.value = 1
        #expect(pulse.valueUpdatedCount == 0)
        pulse.value = 2
        #expect(pulse.valueUpdatedCount == 1)
    }

    @Test func alertPulseFiresOncePerAssignmentAndNotForOtherMutations() async {
        let reactor = AlertReactor()
        var runtime: ReactorRuntime<AlertReactor>? = ReactorRuntime(reactor: reactor)
        let pulses = runtime!.pulse(\.$alertMessage)

        let actions: [AlertReactor.Action] = [
            .showAlert(message: "1"), .increaseCount, .showAlert(message: nil), .showAlert(message: "2"),
            .showAlert(message: nil), .increaseCount, .showAlert(message: nil), .showAlert(message: "3"),
            .showAlert(message: "3"),
        ]
        for action in actions {
            runtime!.send(action)
        }
        await runtime!.waitUntilIdle()
        #expect(runtime!.currentState.count == 2)
        runtime = nil // ends the stream

        let raw = await collect(pulses)
        // Unlike ReactorKit, the current (initial) value is not replayed on subscription.
        #expect(raw == ["1", nil, "2", nil, nil, "3", "3"])
        #expect(raw.compactMap { $0 } == ["1", "2", "3", "3"])
    }

    @Test func lateSubscriberDoesNotGetAPulseThatFiredBefore() async {
        let runtime = ReactorRuntime(reactor: AlertReactor())
        runtime.send(.showAlert(message: "old"))
        await runtime.waitUntilIdle()

        let pulses = runtime.pulse(\.$alertMessage)
        runtime.send(.increaseCount)
        runtime.send(.showAlert(message: "new"))

        #expect(await first(1, of: pulses) == ["new"])
    }

    @Test func twoAssignmentsInOneReduceFireOnceWithTheLastValue() async {
        let runtime = ReactorRuntime(reactor: AlertReactor())
        let pulses = runtime.pulse(\.$alertMessage)

        runtime.send(.showTwice("first", "second"))
        runtime.send(.showAlert(message: "third"))

        #expect(await first(2, of: pulses) == ["second", "third"])
    }
}

/// ReactorKit's pulse fixture.
final class AlertReactor: Reactor {
    enum Action: Sendable {
        case showAlert(message: String?)
        case showTwice(String, String)
        case increaseCount
    }

    enum Mutation: Sendable {
        case setAlertMessage(String?)
        case setTwice(String, String)
        case increaseCount
    }

    struct State: Sendable, Equatable {
        @Pulse var alertMessage: String?
        var count = 0
    }

    let initialState = State()

    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case .showAlert(let message): .just(.setAlertMessage(message))
        case .showTwice(let first, let second): .just(.setTwice(first, second))
        case .increaseCount: .just(.increaseCount)
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var newState = state
        switch mutation {
        case .setAlertMessage(let alertMessage):
            newState.alertMessage = alertMessage
        case .setTwice(let first, let second):
            newState.alertMessage = first
            newState.alertMessage = second
        case .increaseCount:
            newState.count += 1
        }
        return newState
    }
}
