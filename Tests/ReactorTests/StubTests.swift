import Reactor
import Testing

/// ReactorKit 8: the stub records actions, sets the state at once and runs nothing.
@Suite struct StubTests {
    @Test func stubRecordsActionsInOrder() async {
        let runtime = ReactorRuntime(reactor: StopwatchReactor())
        runtime.isStubEnabled = true

        runtime.send(.start)
        runtime.send(.start)
        runtime.send(.stop)

        #expect(runtime.stub.actions == [.start, .start, .stop])
        #expect(!runtime.hasEffectsInFlight)
    }

    @Test func settingStubStateUpdatesCurrentStateAtOnceAndTellsObservers() async {
        let reactor = StopwatchReactor()
        let runtime = ReactorRuntime(reactor: reactor)
        runtime.isStubEnabled = true
        let (states, observation) = runtime.recordStates()

        for value in [0, 1, -10, 30] {
            runtime.stub.state = value
            #expect(runtime.currentState == value)
            #expect(reactor.currentState == value)
        }
        await runtime.waitUntilIdle()

        #expect(states.values == [0, 1, -10, 30])
        observation.cancel()
    }

    @Test func stubbedRuntimeRunsNoTransformMutateOrReduce() async {
        let reactor = SpyReactor()
        let runtime = ReactorRuntime(reactor: reactor)
        let callsAtCreation = reactor.calls.values
        runtime.isStubEnabled = true
        let outcome = Recorder<ActionOutcome>()

        runtime.send("A") { outcome.append($0) }
        await runtime.waitUntilIdle()

        #expect(callsAtCreation == ["transform(state:)"])
        #expect(reactor.calls.values == callsAtCreation)
        #expect(runtime.currentState == [])
        #expect(runtime.stub.actions == ["A"])
        #expect(outcome.values == [.accepted])
    }

    @Test func disablingTheStubResumesTheRealPipeline() async {
        let reactor = SpyReactor()
        let runtime = ReactorRuntime(reactor: reactor)
        runtime.isStubEnabled = true
        runtime.send("stubbed")
        runtime.isStubEnabled = false

        runtime.send("real")
        await runtime.waitUntilIdle()

        #expect(runtime.currentState == ["real"])
        #expect(runtime.stub.actions == ["stubbed"])
    }
}
