import Reactor
import Synchronization
import Testing

/// ReactorKit 13: releasing the runtime releases the reactor and the whole pipeline.
@Suite struct LifetimeTests {
    @Test func releasingTheRuntimeReleasesReactorPipelineAndTasks() async {
        weak var weakReactor: StopwatchReactor?
        weak var weakRuntime: ReactorRuntime<StopwatchReactor>?
        let tickingEnded = Atomic(false)
        let states: AsyncStream<Int>
        let observation: RuntimeObservation
        do {
            let reactor = StopwatchReactor { tickingEnded.store(true, ordering: .relaxed) }
            let runtime = ReactorRuntime(reactor: reactor, clock: LiveClock())
            weakReactor = reactor
            weakRuntime = runtime
            states = runtime.states
            observation = runtime.observe { _ in }
            runtime.send(.start)
            runtime.send(.start)
            #expect(await eventually { runtime.hasEffectsInFlight })
        }

        #expect(await eventually { weakRuntime == nil })
        #expect(await eventually { tickingEnded.load(ordering: .relaxed) })
        #expect(await eventually { weakReactor == nil })
        #expect(await collect(states) == [0])
        observation.cancel()
    }

    @Test func releasingTheRuntimeResumesEffectsWaitingOnATestClock() async {
        let clock = TestClock()
        let tickingEnded = Atomic(false)
        var runtime: ReactorRuntime<StopwatchReactor>? = ReactorRuntime(
            reactor: StopwatchReactor { tickingEnded.store(true, ordering: .relaxed) },
            clock: clock
        )
        runtime?.send(.start)
        await clock.advance()
        #expect(clock.pendingCount == 1)

        runtime = nil

        #expect(await eventually { tickingEnded.load(ordering: .relaxed) })
        #expect(clock.pendingCount == 0)
    }

    @Test func observationTokenEndsObservationWhenReleased() async {
        let runtime = ReactorRuntime(reactor: CounterReactor())
        let seen = Recorder<Int>()
        var observation: RuntimeObservation? = runtime.observe { event in
            if case .state(let state) = event { seen.append(state) }
        }
        runtime.send(.increase)
        await runtime.waitUntilIdle()
        withExtendedLifetime(observation) {}
        observation = nil

        runtime.send(.increase)
        await runtime.waitUntilIdle()

        #expect(seen.values == [1])
        #expect(runtime.currentState == 2)
    }
}
