import Reactor
import Synchronization
import Testing

/// ReactorKit 9: actions sent from inside the pipeline are queued, never processed recursively.
@Suite struct ReentrancyTests {
    @Test func actionSentFromAnObserverWaitsForTheCurrentAction() async {
        let runtime = ReactorRuntime(reactor: LogReactor())
        let didSend = Atomic(false)
        let observation = runtime.observe { event in
            if case .state(let state) = event, state.log.contains("enter A"),
               !didSend.exchange(true, ordering: .relaxed) {
                runtime.send(.b)
            }
        }

        runtime.send(.a)
        await runtime.waitUntilIdle()

        #expect(runtime.currentState.log == ["enter A", "exit A", "enter B", "exit B"])
        observation.cancel()
    }

    @Test func actionSentFromReduceDoesNotRecurse() async {
        let reactor = LogReactor()
        let runtime = ReactorRuntime(reactor: reactor)
        reactor.followUp.withLock {
            $0 = { [weak runtime] action in runtime?.send(action) }
        }

        runtime.send(.a)
        await runtime.waitUntilIdle()

        #expect(runtime.currentState.log == ["enter A", "exit A", "enter B", "exit B"])
    }

    @Test func observerPresentingAfterDismissEndsAtTheNewRoute() async {
        let runtime = ReactorRuntime(reactor: RouteReactor())
        let didPresent = Atomic(false)
        let (states, recording) = runtime.recordStates()
        let observation = runtime.observe { event in
            if case .state(let state) = event, state.route == nil,
               !didPresent.exchange(true, ordering: .relaxed) {
                runtime.send(.present("next"))
            }
        }

        runtime.send(.dismiss)
        await runtime.waitUntilIdle()

        #expect(runtime.currentState.route == "next")
        #expect(states.values.map(\.route) == [nil, "next"])
        observation.cancel()
        recording.cancel()
    }
}
