import Reactor
import ReactorTesting
import Testing

/// Refusals and the order of acknowledgements against states.
@Suite struct ActionOutcomeTests {
    @Test func refusedActionReportsItsMessageAndChangesNothing() async {
        let runtime = ReactorRuntime(reactor: TodoReactor())
        let (states, observation) = runtime.recordStates()
        let outcomes = Recorder<ActionOutcome>()

        runtime.send(.toggle(id: "missing")) { outcomes.append($0) }
        await runtime.waitUntilIdle()
        #expect(outcomes.values == [.refused(ActionRefusal("no item with id missing"))])
        #expect(states.values.isEmpty)

        runtime.send(.add(id: "x")) { outcomes.append($0) }
        runtime.send(.toggle(id: "x")) { outcomes.append($0) }
        await runtime.waitUntilIdle()
        #expect(outcomes.values.dropFirst() == [.accepted, .accepted])
        #expect(runtime.currentState.items == ["x": true])
        #expect(states.values.count == 2)
        observation.cancel()
    }

    /// `admit` is asked when the action's turn comes: a no withdraws it (not processed,
    /// nothing changes), a yes processes it as usual; the order of the others stays.
    @Test func withdrawnActionsAreNotProcessed() async {
        let runtime = ReactorRuntime(reactor: TodoReactor())
        let outcomes = Recorder<String>()

        runtime.send(.add(id: "a"), admit: { true }) { outcomes.append("a \($0)") }
        runtime.send(.add(id: "b"), admit: { false }) { outcomes.append("b \($0)") }
        runtime.send(.toggle(id: "a"), admit: { true }) { outcomes.append("toggle \($0)") }
        await runtime.waitUntilIdle()

        #expect(outcomes.values == ["a accepted", "b withdrawn", "toggle accepted"])
        #expect(runtime.currentState.items == ["a": true])
    }

    @Test func refusalIsAssertedInATestStore() async {
        let store = TestStore(reactor: TodoReactor())

        await store.send(.toggle(id: "x"), refusedWith: "no item with id x")
        await store.send(.add(id: "x")) { $0.items["x"] = false }
        await store.send(.toggle(id: "x")) { $0.items["x"] = true }
        await store.finish()
    }

    @Test func completionComesBeforeTheFirstStateOfItsAction() async {
        let runtime = ReactorRuntime(reactor: CounterViewReactor(delay: .zero))
        let events = Recorder<String>()
        let observation = runtime.observe { event in
            if case .state(let state) = event {
                events.append("state value=\(state.value) loading=\(state.isLoading)")
            }
        }

        runtime.send(.increase) { events.append("ack \($0)") }
        await runtime.waitUntilIdle()

        #expect(events.values == [
            "ack accepted",
            "state value=0 loading=true",
            "state value=1 loading=true",
            "state value=1 loading=false",
            "state value=1 loading=false",
        ])
        observation.cancel()
    }

    @Test func eachActionsAckPrecedesItsStatesInABurst() async {
        let runtime = ReactorRuntime(reactor: CounterReactor())
        let events = Recorder<String>()
        let observation = runtime.observe { event in
            switch event {
            case .state(let state): events.append("state \(state)")
            case .drained: events.append("drained")
            }
        }

        for index in 1...3 {
            runtime.send(.increase) { _ in events.append("ack \(index)") }
        }
        await runtime.waitUntilIdle()

        let withoutDrains = events.values.filter { $0 != "drained" }
        #expect(withoutDrains == ["ack 1", "state 1", "ack 2", "state 2", "ack 3", "state 3"])
        #expect(events.values.last == "drained")
        observation.cancel()
    }
}

/// A reactor that refuses actions on items it does not have.
final class TodoReactor: Reactor {
    enum Action: Sendable {
        case add(id: String)
        case toggle(id: String)
    }

    struct State: Sendable, Equatable {
        var items: [String: Bool] = [:]
    }

    let initialState = State()

    func mutate(action: Action) throws -> Effect<Action> {
        if case .toggle(let id) = action, currentState.items[id] == nil {
            throw ActionRefusal("no item with id \(id)")
        }
        return .just(action)
    }

    func reduce(state: State, mutation: Action) -> State {
        var state = state
        switch mutation {
        case .add(let id): state.items[id] = false
        case .toggle(let id): state.items[id]?.toggle()
        }
        return state
    }
}
