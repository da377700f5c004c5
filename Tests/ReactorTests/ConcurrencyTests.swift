import Dispatch
import Reactor
import Synchronization
import Testing

/// ReactorKit 10 and the load test: many senders, one serial pipeline.
@Suite struct ConcurrencyTests {
    /// Run under `swift test --sanitize=thread --filter ConcurrencyTests`.
    @Test func tenThousandActionsFromManyTasksAreEachReducedOnceInSenderOrder() async {
        let (senders, perSender) = (40, 250)
        let reactor = SequenceReactor(senders: senders)
        let runtime = ReactorRuntime(reactor: reactor)
        let observedStates = Atomic(0)
        let observation = runtime.observe { event in
            if case .state = event {
                observedStates.add(1, ordering: .relaxed)
            }
        }

        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for sequence in 0..<perSender {
                        runtime.send(.record(sender: sender, sequence: sequence))
                    }
                }
            }
        }
        await runtime.waitUntilIdle()

        let state = runtime.currentState
        #expect(state.total == 10_000)
        #expect(state.outOfOrder == 0)
        #expect(state.next == Array(repeating: perSender, count: senders))
        #expect(observedStates.load(ordering: .relaxed) == 10_000)
        #expect(reactor.overlappingReduces.load(ordering: .relaxed) == 0)
        observation.cancel()
    }

    @Test func concurrentFirstUseFromManyTasksSharesOnePipeline() async {
        let reactor = SequenceReactor(senders: 100)
        let runtime = ReactorRuntime(reactor: reactor)
        let observations = Recorder<RuntimeObservation>()

        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<100 {
                group.addTask {
                    observations.append(runtime.observe { _ in })
                    _ = reactor.currentState
                    _ = runtime.currentState
                    runtime.send(.record(sender: sender, sequence: 0))
                }
            }
        }
        await runtime.waitUntilIdle()

        #expect(runtime.currentState.total == 100)
        #expect(reactor.currentState.total == 100)
        #expect(runtime.currentState.outOfOrder == 0)
        #expect(reactor.overlappingReduces.load(ordering: .relaxed) == 0)
        #expect(observations.values.count == 100)
    }

    @Test func actionSentFromAnotherThreadIsReduced() async {
        let runtime = ReactorRuntime(reactor: CounterReactor())

        let outcome = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                runtime.send(.increase) { continuation.resume(returning: $0) }
            }
        }
        await runtime.waitUntilIdle()

        #expect(outcome == .accepted)
        #expect(runtime.currentState == 1)
    }
}
