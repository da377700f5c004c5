import Reactor
import ReactorTesting
import Testing

/// Seed 004: the counter with a loading flag, a 500 ms delay and an alert pulse.
@Suite struct CounterSeedTests {
    @Test func increaseShowsLoadingThenCountsAndAlerts() async {
        let store = TestStore(reactor: CounterViewReactor())

        await store.send(.increase) { $0.isLoading = true }
        await store.advance(by: .milliseconds(499))
        await store.advance(by: .milliseconds(1))
        await store.receive { $0.value = 1 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "increased!" }
        await store.finish()

        #expect(store.state.value == 1)
        #expect(store.state.$alertMessage.valueUpdatedCount == 1)
    }

    @Test func decreaseShowsLoadingThenCountsDownAndAlerts() async {
        let store = TestStore(reactor: CounterViewReactor())

        await store.send(.decrease) { $0.isLoading = true }
        await store.advance(by: .milliseconds(500))
        await store.receive { $0.value = -1 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "decreased!" }
        await store.finish()
    }

    /// Two overlapping increases merge: both set loading at once, and each completes 500 ms after
    /// its own start. Reducing `setLoading(true)` twice gives two states, the second unchanged.
    @Test func overlappingIncreasesInterleave() async {
        let store = TestStore(reactor: CounterViewReactor())

        await store.send(.increase) { $0.isLoading = true }
        await store.send(.increase) { $0.isLoading = true }
        await store.advance(by: .milliseconds(500))
        await store.receive { $0.value = 1 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "increased!" }
        await store.receive { $0.value = 2 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "increased!" }
        await store.finish()

        #expect(store.state.$alertMessage.valueUpdatedCount == 2)
    }

    @Test func staggeredIncreasesReportLoadingFalseWhileTheSecondStillRuns() async {
        let store = TestStore(reactor: CounterViewReactor())

        await store.send(.increase) { $0.isLoading = true }
        await store.advance(by: .milliseconds(200))
        await store.send(.increase) { $0.isLoading = true }
        await store.advance(by: .milliseconds(300))
        await store.receive { $0.value = 1 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "increased!" }
        await store.advance(by: .milliseconds(200))
        await store.receive { $0.value = 2 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "increased!" }
        await store.finish()
    }

    @Test func alertPulseStreamGetsOneAlertPerIncrease() async {
        let clock = TestClock()
        let runtime = ReactorRuntime(reactor: CounterViewReactor(), clock: clock)
        let alerts = runtime.pulse(\.$alertMessage)

        runtime.send(.increase)
        runtime.send(.decrease)
        await clock.advance(by: .milliseconds(500))

        #expect(await first(2, of: alerts) == ["increased!", "decreased!"])
        #expect(runtime.currentState.value == 0)
        #expect(runtime.currentState.isLoading == false)
    }

    @Test func runsOnTheLiveClock() async {
        let runtime = ReactorRuntime(reactor: CounterViewReactor(delay: .milliseconds(10)))
        let (states, observation) = runtime.recordStates()

        runtime.send(.increase)
        await runtime.waitUntilIdle()

        #expect(states.values.map(\.value) == [0, 1, 1, 1])
        #expect(states.values.map(\.isLoading) == [true, true, false, false])
        #expect(states.values.last?.alertMessage == "increased!")
        observation.cancel()
    }
}
