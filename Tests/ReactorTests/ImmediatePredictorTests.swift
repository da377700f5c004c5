import Reactor
import ReactorHubLocking
import Testing

/// `Effect.forEachImmediateMutation` and `ImmediatePredictor`: what a client predicts is what
/// a runtime has reduced when it says an action is applied (PROTOCOL.md "Acks", `applied`).
@Suite struct ImmediatePredictorTests {
    typealias Action = ScriptedReactor.Action

    @Test func theImmediatePartStopsWhereTheEffectFirstWaits() {
        let effect: Effect<String> = .concat([
            .just("a"),
            .merge([.just("b"), .run { send in await send("never") }, .just("c")]),
            .just("d", "e"),
            Effect.just("late").delay(.seconds(1)),
            .just("after the delay"),
        ])
        #expect(effect.immediateMutations == ["a", "b", "c"])
        #expect(Effect<String>.merge([Effect.just("x").delay(.seconds(1)), .just("y")]).immediateMutations == ["y"])
        #expect(Effect<String>.concat([.just("x"), .cancel(id: 1), Effect.just("y").cancellable(id: 2)]).immediateMutations == ["x", "y"])
        #expect(Effect<String>.run { _ in }.immediateMutations.isEmpty)
        #expect(Effect<String>.none.immediateMutations.isEmpty)
    }

    @Test func noDelayedOrAsynchronousWorkRunsWhilePredicting() async {
        let ran = Locked(0)
        let predictor = ImmediatePredictor(reactor: ScriptedReactor())
        let predicted = try? predictor.predict(Action("a") { _ in
            .concat([
                .just("1"),
                .run { _ in ran.withLock { $0 += 1 } },
                .deferred { ran.withLock { $0 += 1 }; return .just("never") },
            ])
        }, from: ["0"])
        #expect(predicted == ["0", "1"])
        // Nothing was started that could run later either.
        await Task.yield()
        #expect(ran.withLock { $0 } == 0)
    }

    @Test func currentStateInsideMutateAndDeferredPartsIsTheStatePredictedSoFar() throws {
        let reactor = ScriptedReactor()
        let predictor = ImmediatePredictor(reactor: reactor)
        let action = Action("a") { reactor in
            .concat([
                .just("saw \(reactor.currentState.count)"),
                .deferred { .just("then \(reactor.currentState.count)") },
            ])
        }
        #expect(try predictor.predict(action, from: ["x", "y"]) == ["x", "y", "saw 2", "then 3"])
        // Outside a prediction the reactor reads as unrun.
        #expect(reactor.currentState == [])
    }

    @Test func aRefusalInMutateIsThrownAndTheTransformsRunAsOnTheServer() throws {
        let refusing = ImmediatePredictor(reactor: RefusingReactor())
        #expect(throws: ActionRefusal("no")) { try refusing.predict("a", from: 0) }
        #expect(try refusing.predict("b", from: 1) == 2)

        let transforming = ImmediatePredictor(reactor: TransformingReactor())
        #expect(try transforming.predict(["action"], from: []) == TransformingReactor.stateAfterOneAction)
    }

    /// Random effect trees, run by a runtime on a test clock and by a predictor from the same
    /// state: the runtime's state when it calls `applied` is the prediction, every time.
    @Test(arguments: 0..<40)
    func aPredictionIsTheStateTheRuntimeHasWhenItSaysApplied(seed: Int) async {
        var random = SeededRandom(seed: UInt64(seed) + 1)
        // Every effect here waits only on `send` or this clock, so the runtime always settles:
        // `advance` may wait for it as long as it takes. (With the default 10 s bound, a run of
        // every suite in one process beside a busy core starved the runtime past it; `advance`
        // then moved time on before a `delay` was scheduled, and that timer never fired.)
        let clock = TestClock(settleTimeout: .seconds(3600))
        let runtime = ReactorRuntime(reactor: ScriptedReactor(), clock: clock)
        let predictor = ImmediatePredictor(reactor: ScriptedReactor())
        for step in 0..<8 {
            let tree = RandomEffect.make(depth: 3, tag: "\(step)", random: &random)
            let action = Action("s\(step)") { reactor in tree.effect(reading: reactor) }
            let before = runtime.currentState
            let predicted = try? predictor.predict(action, from: before)
            let atApplied = Locked<[String]?>(nil)
            let published = runtime
            runtime.send(action, admit: nil, completion: { _ in }, applied: { atApplied.withLock { $0 = published.currentState } })
            await clock.advance(by: .seconds(10))
            await runtime.waitUntilIdle()
            #expect(atApplied.withLock { $0 } == predicted, "seed \(seed), step \(step): \(tree)")
        }
    }
}

/// Refuses "a"; anything else adds one.
final class RefusingReactor: Reactor {
    typealias Action = String
    typealias Mutation = Int
    typealias State = Int
    let initialState = 0

    func mutate(action: String) throws -> Effect<Int> {
        guard action != "a" else { throw ActionRefusal("no") }
        return .just(1)
    }

    func reduce(state: Int, mutation: Int) -> Int {
        state + mutation
    }
}

/// An effect tree made at random, rebuilt for each reactor that runs it; `deferred` parts
/// record the state they see.
indirect enum RandomEffect: Sendable, CustomStringConvertible {
    case just([String])
    case concat([RandomEffect])
    case merge([RandomEffect])
    case deferred(String)
    case delayed(RandomEffect, milliseconds: Int)
    case run([String])
    case cancellable(RandomEffect)

    static func make(depth: Int, tag: String, random: inout SeededRandom) -> RandomEffect {
        let choice = depth == 0 ? random.next(below: 3) : random.next(below: 7)
        let label = "\(tag).\(random.next(below: 1000))"
        switch choice {
        case 0: return .just((0..<random.next(below: 3)).map { "\(label)-\($0)" })
        case 1: return .deferred(label)
        case 2: return .run([label + "-r1", label + "-r2"])
        case 3: return .concat((0..<random.next(below: 4)).map { make(depth: depth - 1, tag: "\(tag).\($0)", random: &random) })
        case 4: return .merge((0..<random.next(below: 4)).map { make(depth: depth - 1, tag: "\(tag).\($0)", random: &random) })
        case 5: return .delayed(make(depth: depth - 1, tag: tag + "d", random: &random), milliseconds: 1 + random.next(below: 50))
        default: return .cancellable(make(depth: depth - 1, tag: tag + "c", random: &random))
        }
    }

    func effect(reading reactor: ScriptedReactor) -> Effect<String> {
        switch self {
        case .just(let mutations): .just(mutations)
        case .concat(let parts): .concat(parts.map { $0.effect(reading: reactor) })
        case .merge(let parts): .merge(parts.map { $0.effect(reading: reactor) })
        case .deferred(let label): .deferred { .just("\(label) saw \(reactor.currentState.count)") }
        case .delayed(let inner, let milliseconds): inner.effect(reading: reactor).delay(.milliseconds(milliseconds))
        case .run(let mutations):
            .run { send in
                for mutation in mutations { await send(mutation) }
            }
        case .cancellable(let inner): inner.effect(reading: reactor).cancellable(id: "c")
        }
    }

    var description: String {
        switch self {
        case .just(let mutations): "just\(mutations)"
        case .concat(let parts): "concat\(parts)"
        case .merge(let parts): "merge\(parts)"
        case .deferred(let label): "deferred(\(label))"
        case .delayed(let inner, let milliseconds): "delay(\(milliseconds)ms, \(inner))"
        case .run(let mutations): "run\(mutations)"
        case .cancellable(let inner): "cancellable(\(inner))"
        }
    }
}

/// A small reproducible generator (SplitMix64).
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
