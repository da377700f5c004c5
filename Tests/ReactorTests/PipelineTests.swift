import Reactor
import Testing

/// ReactorKit's pipeline tests 1 to 6, adapted: a runtime instead of `reactor.action`/`state`.
@Suite struct PipelineTests {
    /// ReactorKit 1: each stage runs once, in order, and `transform(state:)` is not fed back.
    @Test func eachStageRunsOnceInOrderAndGivesExactlyTwoStates() async {
        let runtime = ReactorRuntime(reactor: TransformingReactor())
        let (states, observation) = runtime.recordStates()
        let initial = runtime.currentState

        runtime.send(["action"])
        await runtime.waitUntilIdle()

        #expect(initial == ["transformedState"])
        #expect(states.values == [TransformingReactor.stateAfterOneAction])
        #expect(runtime.currentState == TransformingReactor.stateAfterOneAction)
        observation.cancel()
    }

    @Test func transformedStateIsNotFedBackIntoReduce() async {
        let runtime = ReactorRuntime(reactor: TransformingReactor())
        runtime.send(["1"])
        runtime.send(["2"])
        await runtime.waitUntilIdle()

        #expect(runtime.currentState == [
            "1", "transformedAction", "mutation", "transformedMutation", "reduce",
            "2", "transformedAction", "mutation", "transformedMutation", "reduce",
            "transformedState",
        ])
    }

    /// ReactorKit 2: lazily built parts of a `concat` read `currentState` with the previous parts
    /// already reduced.
    @Test func deferredPartsOfConcatSeePreviousMutationsReduced() async {
        let reactor = CharacterReactor()
        let runtime = ReactorRuntime(reactor: reactor)

        runtime.send(.append(["a", "b"]))
        runtime.send(.append(["c"]))
        runtime.send(.append(["d", "e", "f"]))
        await runtime.waitUntilIdle()

        #expect(reactor.currentState.characters == ["a", "b", "c", "d", "e", "f"])
        #expect(runtime.currentState.characters == ["a", "b", "c", "d", "e", "f"])
    }

    /// ReactorKit 3: a late subscriber gets the current state first, then live ones.
    @Test func lateSubscriberGetsCurrentStateThenLiveStates() async {
        let runtime = ReactorRuntime(reactor: CounterReactor())
        runtime.send(.increase)
        runtime.send(.increase)
        await runtime.waitUntilIdle()

        let states = runtime.states
        runtime.send(.increase)

        #expect(await first(2, of: states) == [2, 3])
    }

    /// ReactorKit 4: `currentState` is current after an action, whether states were observed or not.
    @Test(arguments: [true, false])
    func currentStateIsCurrentAfterAnAction(observed: Bool) async {
        let reactor = TransformingReactor()
        let runtime = ReactorRuntime(reactor: reactor)
        let stream = observed ? runtime.states : nil

        runtime.send(["action"])
        await runtime.waitUntilIdle()

        #expect(reactor.currentState == TransformingReactor.stateAfterOneAction)
        #expect(runtime.currentState == TransformingReactor.stateAfterOneAction)
        _ = stream
    }

    @Test func reactorWithoutRuntimeReportsInitialState() {
        let reactor = TransformingReactor()
        #expect(reactor.currentState == [])
    }

    /// ReactorKit 5, adapted: an action whose `mutate` fails or refuses ends alone; later actions
    /// still work.
    @Test func failingAndRefusedActionsDoNotEndThePipeline() async {
        let runtime = ReactorRuntime(reactor: CounterReactor(), logger: CapturedLogs.logger(label: "test.pipeline"))
        let (states, observation) = runtime.recordStates()
        let outcomes = Recorder<ActionOutcome>()

        for action: CounterReactor.Action in [.increase, .increase, .fail, .refuse, .increase, .increase, .fail, .increase] {
            runtime.send(action) { outcomes.append($0) }
        }
        await runtime.waitUntilIdle()

        #expect(states.values == [1, 2, 3, 4, 5])
        #expect(outcomes.values == [
            .accepted, .accepted, .failed("TestError"), .refused(ActionRefusal("refused")),
            .accepted, .accepted, .failed("TestError"), .accepted,
        ])
        observation.cancel()
    }

    /// ReactorKit 6: an effect that errors after its mutation keeps that mutation and ends alone.
    @Test func effectErroringAtTwoKeepsItsMutationAndLaterActionsWork() async {
        let runtime = ReactorRuntime(reactor: CounterReactor(stateForTriggerError: 2), logger: CapturedLogs.logger(label: "test.cr-error"))
        let initial = runtime.currentState
        let (states, observation) = runtime.recordStates()

        for _ in 0..<5 {
            runtime.send(.increase)
            await runtime.waitUntilIdle()
        }

        #expect([initial] + states.values == [0, 1, 2, 3, 4, 5])
        let failures = CapturedLogs.records(label: "test.cr-error").filter { $0.message == "effect failed" }
        #expect(failures.count == 1)
        #expect(failures.first?.metadata["reactor"] == "CounterReactor")
        #expect(failures.first?.metadata["action"] == "increase")
        #expect(failures.first?.metadata["error"] == "TestError")
        observation.cancel()
    }

    /// ReactorKit 6: an effect that completes after its mutation changes nothing else.
    @Test func effectCompletingAtTwoKeepsItsMutationAndLaterActionsWork() async {
        let runtime = ReactorRuntime(reactor: CounterReactor(stateForTriggerCompleted: 2))
        let initial = runtime.currentState
        let (states, observation) = runtime.recordStates()

        for _ in 0..<5 {
            runtime.send(.increase)
            await runtime.waitUntilIdle()
        }

        #expect([initial] + states.values == [0, 1, 2, 3, 4, 5])
        #expect(!runtime.hasEffectsInFlight)
        observation.cancel()
    }
}

/// ReactorKit's fixture for test 2: appends characters through lazy sources.
final class CharacterReactor: Reactor {
    enum Action: Sendable {
        case append([String])
    }

    enum Mutation: Sendable {
        case setCharacters([String])
    }

    struct State: Sendable {
        var characters: [String] = []
    }

    let initialState = State()

    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case .append(let characters):
            return .concat(characters.map { character in
                .deferred { .just(.setCharacters(self.currentState.characters + [character])) }
            })
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var newState = state
        switch mutation {
        case .setCharacters(let characters):
            newState.characters = characters
        }
        return newState
    }
}
