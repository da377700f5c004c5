import Reactor
import ReactorTesting
import Synchronization
import Testing

/// ReactorKit 7: the stopwatch on a virtual clock, cancelled with `cancel(id:)`.
@Suite struct StopwatchTests {
    struct Sample: Equatable, CustomStringConvertible {
        var second: Int64
        var state: Int
        var description: String { "\(state)@\(second)s" }
    }

    @Test func ticksOnlyBetweenStartAndStopAndAStopAtATickWins() async {
        let clock = TestClock()
        let endedTasks = Atomic(0)
        let runtime = ReactorRuntime(reactor: StopwatchReactor { endedTasks.add(1, ordering: .relaxed) }, clock: clock)
        let samples = Recorder<Sample>()
        let observation = runtime.observe { event in
            if case .state(let state) = event {
                samples.append(Sample(second: clock.now.components.seconds, state: state))
            }
        }
        // As with ReactorKit's hot observable, the actions are scheduled before any tick, so at
        // 5 s and 9 s the stop fires before the tick due at the same instant.
        let script: [(second: Int64, action: StopwatchReactor.Action)] = [(1, .start), (5, .stop), (6, .start), (9, .stop)]
        for (second, action) in script {
            _ = clock.schedule(after: .seconds(second)) { runtime.send(action) }
        }

        await clock.advance(by: .seconds(20))

        #expect([Sample(second: 0, state: 0)] + samples.values == [
            Sample(second: 0, state: 0),
            Sample(second: 2, state: 1),
            Sample(second: 3, state: 2),
            Sample(second: 4, state: 3),
            Sample(second: 7, state: 4),
            Sample(second: 8, state: 5),
        ])
        #expect(endedTasks.load(ordering: .relaxed) == 2)
        #expect(!runtime.hasEffectsInFlight)
        #expect(clock.pendingCount == 0)
        observation.cancel()
    }

    @Test func stopwatchReadsAsATestStoreScript() async {
        let store = TestStore(reactor: StopwatchReactor())

        await store.send(.start)
        await store.advance(by: .seconds(1))
        await store.receive { $0 = 1 }
        await store.advance(by: .seconds(2))
        await store.receive { $0 = 2 }
        await store.receive { $0 = 3 }
        await store.send(.stop)
        await store.advance(by: .seconds(5))
        await store.finish()
    }
}
