import Foundation
import Reactor
import ReactorTesting
import Synchronization
import Testing

/// The semantics of each kind of effect, on a runtime and a test clock.
@Suite struct EffectTests {
    typealias Action = ScriptedReactor.Action

    let clock = TestClock()

    func makeRuntime(externalMutations: Effect<String> = .none, logLabel: String = "test.effects") -> ReactorRuntime<ScriptedReactor> {
        ReactorRuntime(
            reactor: ScriptedReactor(externalMutations: externalMutations),
            clock: clock,
            logger: CapturedLogs.logger(label: logLabel)
        )
    }

    @Test func justOfSeveralReducesEachInOrder() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in .just("1", "2") })
        runtime.send(Action("b") { _ in .just(["3", "4"]) })
        runtime.send(Action("c") { _ in .concat() })
        await runtime.waitUntilIdle()
        #expect(runtime.currentState == ["1", "2", "3", "4"])
    }

    @Test func concatStartsEachPartAfterThePreviousOnesMutationsAreReduced() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in
            .concat(
                .just("a1"),
                .run { send in
                    await send("a2")
                    await send("a3")
                },
                .just("a4")
            )
        })
        await runtime.waitUntilIdle()
        #expect(runtime.currentState == ["a1", "a2", "a3", "a4"])
    }

    @Test func effectsOfDifferentActionsInterleave() async {
        let runtime = makeRuntime()
        let script = { (name: String) in
            Action(name) { _ in .concat(.just("\(name)1"), Effect.just("\(name)2").delay(.seconds(1)), .just("\(name)3")) }
        }
        runtime.send(script("a"))
        runtime.send(script("b"))
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["a1", "b1", "a2", "a3", "b2", "b3"])
    }

    @Test func mergeRunsPartsAtTheSameTimeAndCompletesWithTheLast() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in
            .concat(
                .merge(
                    Effect.just("slow").delay(.seconds(2)),
                    Effect.just("fast").delay(.seconds(1)),
                    .just("now")
                ),
                .just("after")
            )
        })
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["now", "fast"])
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["now", "fast", "slow", "after"])
        #expect(!runtime.hasEffectsInFlight)
    }

    @Test func deferredIsBuiltWhenReached() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { reactor in
            .concat(
                .just("x"),
                .deferred { .just("seen \(reactor.currentState.count)") },
                Effect.deferred { .just("later \(reactor.currentState.count)") }.delay(.seconds(1))
            )
        })
        runtime.send(Action("b") { _ in .just("y") })
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["x", "seen 1", "y", "later 3"])
    }

    @Test func sendReturnsAfterTheMutationIsReduced() async {
        let runtime = makeRuntime()
        let seen = Recorder<[String]>()
        runtime.send(Action("a") { reactor in
            .run { send in
                await send("1")
                seen.append(reactor.currentState)
                await send("2")
                seen.append(reactor.currentState)
            }
        })
        await runtime.waitUntilIdle()
        #expect(seen.values == [["1"], ["1", "2"]])
    }

    @Test func runSleepsOnTheRuntimeClock() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in
            .run { send in
                try await send.clock.sleep(for: .seconds(3))
                await send("woke at \(send.clock.now)")
            }
        })
        await clock.advance(by: .seconds(2))
        #expect(runtime.currentState == [])
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["woke at 3.0 seconds"])
    }

    @Test func cancelStopsACancellableEffectAndTheConcatAroundItGoesOn() async {
        let runtime = makeRuntime()
        runtime.send(Action("start") { _ in
            .concat(
                Effect.just("never").delay(.seconds(5)).cancellable(id: "timer"),
                .just("after cancel")
            )
        })
        await clock.advance(by: .seconds(1))
        #expect(runtime.hasEffectsInFlight)
        runtime.send(Action("stop") { _ in .cancel(id: "timer") })
        await clock.advance(by: .seconds(10))
        #expect(runtime.currentState == ["after cancel"])
        #expect(!runtime.hasEffectsInFlight)
    }

    @Test func cancelledRunSendsNothingMore() async {
        let runtime = makeRuntime()
        let ended = Atomic(false)
        runtime.send(Action("start") { _ in
            .run { send in
                defer { ended.store(true, ordering: .relaxed) }
                await send("first")
                try await send.clock.sleep(for: .seconds(1))
                await send("never")
            }
            .cancellable(id: 1)
        })
        await clock.advance()
        runtime.send(Action("stop") { _ in .cancel(id: 1) })
        await clock.advance(by: .seconds(2))
        #expect(runtime.currentState == ["first"])
        let didEnd = ended.load(ordering: .relaxed)
        #expect(didEnd)
        #expect(!runtime.hasEffectsInFlight)
    }

    @Test func cancelInFlightReplacesTheRunningEffect() async {
        let runtime = makeRuntime()
        let search = { (query: String) in
            Action(query) { _ in Effect.just("result \(query)").delay(.seconds(1)).cancellable(id: "search", cancelInFlight: true) }
        }
        runtime.send(search("a"))
        await clock.advance(by: .milliseconds(500))
        runtime.send(search("ab"))
        await clock.advance(by: .seconds(2))
        #expect(runtime.currentState == ["result ab"])
    }

    @Test func cancelWithAnUnknownIDDoesNothing() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in Effect.just("kept").delay(.seconds(1)).cancellable(id: "a") })
        runtime.send(Action("b") { _ in .cancel(id: "b") })
        runtime.send(Action("c") { _ in .cancel(id: 7) })
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["kept"])
    }

    @Test func cancelAllEffectsStopsEverythingInFlight() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in .concat(Effect.just("a").delay(.seconds(1)), .just("not after a")) })
        runtime.send(Action("b") { _ in .run { send in try await send.clock.sleep(for: .seconds(1)); await send("b") } })
        await clock.advance()
        #expect(runtime.hasEffectsInFlight)

        runtime.cancelAllEffects()
        await clock.advance(by: .seconds(2))

        #expect(runtime.currentState == [])
        #expect(!runtime.hasEffectsInFlight)
        runtime.send(Action("c") { _ in Effect.just("c").delay(.seconds(1)) })
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["c"])
    }

    @Test func errorThrownInRunIsLoggedWithReactorAndActionAndContained() async {
        let runtime = makeRuntime(logLabel: "test.effects.error")
        runtime.send(Action("explode") { _ in
            .concat(
                .run { send in
                    await send("before")
                    throw TestError()
                },
                .just("after")
            )
        })
        await runtime.waitUntilIdle()
        runtime.send(Action("next") { _ in .just("next") })
        await runtime.waitUntilIdle()

        #expect(runtime.currentState == ["before", "after", "next"])
        let records = CapturedLogs.records(label: "test.effects.error")
        #expect(records.map(\.message) == ["effect failed"])
        #expect(records.first?.metadata == ["reactor": "ScriptedReactor", "action": "explode", "error": "TestError"])
        #expect(records.first?.level == .info)
    }

    @Test func externalMutationsStartOnceWithTheRuntime() async {
        let runtime = makeRuntime(externalMutations: .run { send in
            for user in ["ann", "bob"] {
                try await send.clock.sleep(for: .seconds(1))
                await send("user \(user)")
            }
        })
        await clock.advance(by: .seconds(1))
        runtime.send(Action("a") { _ in .just("a") })
        await clock.advance(by: .seconds(1))
        #expect(runtime.currentState == ["user ann", "a", "user bob"])
        #expect(!runtime.hasEffectsInFlight)
    }

    @Test func drainedEndsEachBurst() async {
        let runtime = makeRuntime()
        let events = Recorder<String>()
        let observation = runtime.observe { event in
            switch event {
            case .state(let state): events.append(state.last ?? "")
            case .drained: events.append("drained")
            }
        }

        runtime.send(Action("a") { _ in .concat(.just("a"), Effect.just("later").delay(.seconds(1))) })
        await clock.advance()
        runtime.send(Action("b") { _ in .just("b") })
        await clock.advance(by: .seconds(1))

        #expect(events.values == ["a", "drained", "b", "drained", "later", "drained"])
        observation.cancel()
    }

    @Test func drainedAlsoComesDuringSustainedWork() async {
        let runtime = ReactorRuntime(reactor: CounterReactor())
        let drainedAfter = Recorder<Int>()
        let observation = runtime.observe { event in
            switch event {
            case .state(let state) where state == 1 || state == 601:
                for _ in 0..<600 {
                    runtime.send(.increase)
                }
            case .state:
                break
            case .drained:
                drainedAfter.append(runtime.currentState)
            }
        }

        runtime.send(.increase)
        await runtime.waitUntilIdle()

        // A turn ends after at most `drainBudget` (512) items (sooner on a slow machine:
        // after `drainTimeSlice`), and every turn ends with `.drained`.
        #expect(runtime.currentState == 1201)
        let values = drainedAfter.values
        #expect(values.last == 1201)
        #expect(values.count >= 3)
        #expect(zip([0] + values, values).allSatisfy { previous, next in next >= previous && next - previous <= 512 })
        observation.cancel()
    }

    /// A backlog of slow actions does not hold the serial context's thread: each turn ends
    /// once `drainTimeSlice` (10 ms) has passed, with `.drained`, and the next goes on later.
    @Test func slowActionsEndTheirTurnAfterTheTimeSlice() async {
        let runtime = makeRuntime()
        let events = Recorder<String>()
        let observation = runtime.observe { event in
            switch event {
            case .state(let state): events.append(state.last ?? "")
            case .drained: events.append("drained")
            }
        }
        for name in ["a", "b", "c"] {
            runtime.send(Action(name) { _ in
                Thread.sleep(forTimeInterval: 0.015)
                return .just(name)
            })
        }
        await runtime.waitUntilIdle()

        #expect(runtime.currentState == ["a", "b", "c"])
        #expect(Array(events.values.prefix(6)) == ["a", "drained", "b", "drained", "c", "drained"])
        #expect(events.values.dropFirst(6).allSatisfy { $0 == "drained" })
        observation.cancel()
    }

    @Test func statesStreamStartsWithTheCurrentState() async {
        let runtime = makeRuntime()
        runtime.send(Action("a") { _ in .just("a") })
        await runtime.waitUntilIdle()

        let states = runtime.states
        runtime.send(Action("b") { _ in .just("b") })

        #expect(await first(2, of: states) == [["a"], ["a", "b"]])
    }

    @Test func cancelledObservationReceivesNothingMore() async {
        let runtime = makeRuntime()
        let (states, observation) = runtime.recordStates()
        runtime.send(Action("a") { _ in .just("a") })
        await runtime.waitUntilIdle()
        observation.cancel()
        runtime.send(Action("b") { _ in .just("b") })
        await runtime.waitUntilIdle()
        #expect(states.values == [["a"]])
    }
}
