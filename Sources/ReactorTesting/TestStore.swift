public import Reactor
public import Testing

/// A test harness in the spirit of TCA's `TestStore`: send actions, advance a `TestClock`, and
/// assert every state change in order. Anything left unasserted fails the test.
///
/// Each state produced by a reduce is one change to assert, equal to the state before or not:
/// `send(_:assert:)` asserts the first change after the action and `receive(_:)` each following
/// one, as the previous state modified by the closure. Pulses are part of the state: a pulse
/// that fired must be assigned in the closure (`$0.alertMessage = "increased!"`), so every pulse
/// is asserted. Effects run for real, on the store's `TestClock`; after each step the store waits
/// until the runtime has settled (every effect parked on `send` or the clock), up to `timeout`.
///
/// ```swift
/// let store = TestStore(reactor: CounterViewReactor())
/// await store.send(.increase) { $0.isLoading = true }
/// await store.advance(by: .milliseconds(500))
/// await store.receive { $0.value = 1 }
/// await store.receive { $0.isLoading = false }
/// await store.receive { $0.alertMessage = "increased!" }
/// await store.finish()
/// ```
public final class TestStore<R: Reactor>: Sendable where R.State: Equatable {
    /// The runtime under test.
    public let runtime: ReactorRuntime<R>
    /// The clock of the runtime's effects; advance it with `advance(by:)`.
    public let clock: TestClock
    /// How long a step waits for effects to settle before it asserts what it has.
    public let timeout: Duration

    private let log: StateLog<R.State>
    private let observation: RuntimeObservation
    private let sourceLocation: SourceLocation

    /// Creates a store running `reactor` on `clock`.
    public init(
        reactor: R,
        clock: TestClock = TestClock(),
        timeout: Duration = .seconds(2),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.runtime = ReactorRuntime(reactor: reactor, clock: clock)
        self.clock = clock
        self.timeout = timeout
        self.sourceLocation = sourceLocation
        let log = StateLog(runtime.currentState)
        self.log = log
        self.observation = runtime.observe { event in
            if case .state(let state) = event {
                log.receive(state)
            }
        }
    }

    deinit {
        guard !log.isFinished else { return }
        failIfUnasserted(at: "the end of the test", sourceLocation)
        if runtime.hasEffectsInFlight {
            Issue.record(
                "Effects were still in flight when the store was released; assert them, cancel them or call finish()",
                sourceLocation: sourceLocation
            )
        }
    }

    /// The reactor under test.
    public var reactor: R {
        runtime.reactor
    }

    /// The last asserted state.
    public var state: R.State {
        log.asserted
    }

    /// Sends `action`, expects it to be accepted, and asserts the first state change after it,
    /// if `update` is given, as the previous state modified by `update`.
    /// `sender`: who sends it (`Reactor.mutate(action:from:)`); nil: the server itself.
    public func send(
        _ action: R.Action,
        from sender: Sender? = nil,
        assert update: ((inout R.State) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let step = "send(\(action))"
        let outcome = await submit(action, from: sender, step: step, sourceLocation)
        switch outcome {
        case .accepted?:
            break
        case .refused(let refusal)?:
            Issue.record("\(step) was refused: \(refusal.message)", sourceLocation: sourceLocation)
        case .failed(let message)?:
            Issue.record("\(step) failed: \(message)", sourceLocation: sourceLocation)
        case .withdrawn?:
            Issue.record("\(step) was withdrawn", sourceLocation: sourceLocation)
        case nil:
            Issue.record("\(step) was not processed within \(timeout)", sourceLocation: sourceLocation)
        }
        if let update {
            assertNextChange(update, after: step, sourceLocation)
        }
    }

    /// Sends `action` and expects it to be refused as invalid with `message`, changing nothing.
    public func send(
        _ action: R.Action,
        from sender: Sender? = nil,
        refusedWith message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await send(action, from: sender, refusal: ActionRefusal(message), sourceLocation: sourceLocation)
    }

    /// Sends `action` and expects it to be forbidden by the reactor's own rule with
    /// `message` (`ActionRefusal.forbidden`), changing nothing.
    public func send(
        _ action: R.Action,
        from sender: Sender? = nil,
        forbiddenWith message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await send(action, from: sender, refusal: .forbidden(message), sourceLocation: sourceLocation)
    }

    /// Tells the reactor that a connection joined or left, and asserts the state change it
    /// causes, if `update` is given, as the previous state modified by `update`.
    public func send(
        _ membership: Membership,
        assert update: ((inout R.State) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let step = "send(\(membership))"
        _ = await runtime.settle(timeout: timeout)
        failIfUnasserted(at: step, sourceLocation)
        runtime.send(membership)
        _ = await runtime.settle(timeout: timeout)
        if let update {
            assertNextChange(update, after: step, sourceLocation)
        }
    }

    private func send(_ action: R.Action, from sender: Sender?, refusal: ActionRefusal, sourceLocation: SourceLocation) async {
        let step = "send(\(action))"
        let outcome = await submit(action, from: sender, step: step, sourceLocation)
        let message = refusal.message
        if outcome != .refused(refusal) {
            let actual = outcome.map { "\($0)" } ?? "not processed within \(timeout)"
            Issue.record("\(step) should be refused with \"\(message)\", but was \(actual)", sourceLocation: sourceLocation)
        }
        failIfUnasserted(at: "the refused \(step)", sourceLocation)
    }

    /// Asserts the next state change, produced by an effect, as the previous state modified by
    /// `update` (no closure: the state did not change).
    public func receive(
        _ update: (inout R.State) throws -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        _ = await runtime.settle(timeout: timeout)
        assertNextChange(update, after: "receive", sourceLocation)
    }

    /// Moves the test clock forward, firing due delays and sleeps in order; the changes they
    /// cause are then asserted with `receive`.
    public func advance(by duration: Duration) async {
        await clock.advance(by: duration)
        _ = await runtime.settle(timeout: timeout)
    }

    /// Ends the test: fails on unasserted state changes and on effects still in flight, then
    /// cancels those effects.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        _ = await runtime.settle(timeout: timeout)
        failIfUnasserted(at: "finish()", sourceLocation)
        if runtime.hasEffectsInFlight {
            Issue.record(
                "Effects are still in flight at finish(): a delay or a run effect has not completed; advance the clock or cancel it",
                sourceLocation: sourceLocation
            )
            runtime.cancelAllEffects()
            _ = await runtime.settle(timeout: timeout)
        }
        log.finish()
    }

    private func submit(_ action: R.Action, from sender: Sender?, step: String, _ sourceLocation: SourceLocation) async -> ActionOutcome? {
        _ = await runtime.settle(timeout: timeout)
        failIfUnasserted(at: step, sourceLocation)
        let outcome = OutcomeBox()
        runtime.send(action, from: sender, admit: nil, completion: { outcome.set($0) }, applied: {})
        _ = await runtime.settle(timeout: timeout)
        return outcome.value
    }

    private func assertNextChange(_ update: (inout R.State) throws -> Void, after step: String, _ sourceLocation: SourceLocation) {
        guard let (previous, actual) = log.takeNext() else {
            let inFlight = runtime.hasEffectsInFlight ? " (effects are in flight: advance the clock?)" : ""
            Issue.record("Expected a state change after \(step), but none happened\(inFlight)", sourceLocation: sourceLocation)
            return
        }
        var expected = previous
        do {
            try update(&expected)
        } catch {
            Issue.record("The assertion closure after \(step) threw \(error)", sourceLocation: sourceLocation)
            return
        }
        if expected != actual {
            Issue.record(
                "The state after \(step) is not the expected one (− expected, + actual):\n\(describeDifference(expected: expected, actual: actual))",
                sourceLocation: sourceLocation
            )
        }
    }

    private func failIfUnasserted(at step: String, _ sourceLocation: SourceLocation) {
        let (start, changes) = log.takeAll()
        guard !changes.isEmpty else { return }
        var message = "\(changes.count) state change(s) were not asserted before \(step):"
        var previous = start
        for (index, change) in changes.enumerated() {
            message += "\n#\(index + 1) (− before, + after):\n" + describeDifference(expected: previous, actual: change)
            previous = change
        }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
