import ReactorHubLocking
import Dispatch
public import ReactorHubLogging
import Synchronization

/// Runs one reactor: owns its pipeline, serializes everything that touches its state, and tells
/// observers about every new state. The hub creates one per shared reactor instance.
///
/// The pipeline is ReactorKit's: `transform(action:)`, `mutate(action:)`, then for each
/// mutation `transform(mutation:)`, `reduce`, `transform(state:)`, `currentState`, observers.
/// It is hot from creation: actions are processed whether anyone observes or not.
///
/// Actions and the mutations of asynchronous effects go through a FIFO inbox into a serial
/// context: one drain at a time on Dispatch, which processes everything queued and goes idle.
/// Each action's synchronous mutations are reduced before the next action starts; actions sent
/// from inside `reduce` or an observer are queued, never processed recursively.
///
/// Releasing the runtime cancels its effects, ends its observers and streams, and releases the
/// reactor; effects hold the runtime weakly.
public final class ReactorRuntime<R: Reactor>: Sendable {
    /// The reactor this runtime runs.
    public let reactor: R

    let clock: any ReactorClock
    let logger: Logger
    let inbox = Inbox<RuntimeItem<R>>()
    let published: PublishedState<R.State>
    let machine: EffectMachine<R>
    private let queue: DispatchQueue
    let stubEnabled = Atomic(false)
    /// The instance a trap report names; nil: traps are not reported.
    let trapLabel: TrapLabel?
    let stubActions = Locked<[R.Action]>([])

    /// The most items a drain processes before it yields its thread to other work.
    static var drainBudget: Int { 512 }

    /// The longest a drain keeps its thread before it yields (checked after each item).
    static var drainTimeSlice: Duration { .milliseconds(10) }

    /// Creates the runtime of `reactor` and starts its `externalMutations`.
    ///
    /// - Parameters:
    ///   - clock: Where `delay` and `send.clock` take their time; `TestClock` in tests.
    ///   - logger: Receives the errors of effects, with the reactor and the action; its
    ///     `reactor` metadata defaults to the reactor's type name.
    ///   - restoredState: Where the pipeline starts instead of `initialState`: a state
    ///     kept from before a restart. `initialState` itself is left as the reactor says.
    public convenience init(
        reactor: R,
        clock: any ReactorClock = LiveClock(),
        logger: Logger = Logger(label: "reactor"),
        restoredState: R.State? = nil
    ) {
        self.init(reactor: reactor, clock: clock, logger: logger, restoredState: restoredState, trapLabel: nil)
    }

    /// As the public initializer; with `trapLabel`, a trap in the reactor's code (a failed
    /// precondition, an overflow) is reported on standard error as happening in that
    /// instance and the action it was running, before the process ends (when the host
    /// installed the report: `CTrapReport`).
    package init(
        reactor: R,
        clock: any ReactorClock = LiveClock(),
        logger: Logger = Logger(label: "reactor"),
        restoredState: R.State? = nil,
        trapLabel: TrapLabel?
    ) {
        self.trapLabel = trapLabel
        self.reactor = reactor
        self.clock = clock
        var logger = logger
        if logger[metadataKey: "reactor"] == nil {
            logger[metadataKey: "reactor"] = String(describing: R.self)
        }
        self.logger = logger
        let start = restoredState ?? reactor.initialState
        self.published = PublishedState(reactor.transform(state: start))
        self.machine = EffectMachine(reducedState: start)
        self.queue = DispatchQueue(label: "reactor.\(R.self)", target: .global())
        RuntimeRegistry.register(published, for: reactor)
        (clock as? TestClock)?.attach(inbox)
        let external = reactor.externalMutations
        if !external.isNone {
            enqueue(.external(external))
        }
    }

    deinit {
        // No drain runs now: a drain keeps its runtime alive.
        RuntimeRegistry.unregister(published, for: reactor)
        for item in inbox.close() {
            item.abandon()
        }
        for operation in machine.operations.values {
            switch operation.kind {
            case .timer(_, let work): work?.cancel()
            case .task(let task): task?.cancel()
            }
        }
        machine.operations.removeAll()
        machine.scopes.removeAll()
        for observer in published.removeAll() {
            observer.end()
        }
    }

    /// The state as observers last saw it, readable from any thread.
    public var currentState: R.State {
        published.state
    }

    /// Queues `action`; returns at once, from any thread. Actions from one sender are processed in
    /// the order sent.
    public func send(_ action: R.Action) {
        submit(action, ActionRequest())
    }

    /// Queues `action` and reports what became of it.
    ///
    /// `completion` runs in the serial context right after `mutate(action:)` returned or threw,
    /// before any mutation of that action is reduced: an acknowledgement sent from it precedes
    /// the states the action causes. With the stub enabled it runs at once with `.accepted`.
    public func send(_ action: R.Action, completion: @escaping @Sendable (ActionOutcome) -> Void) {
        submit(action, ActionRequest(completion: completion))
    }

    /// Queues `action` as `send(_:completion:)` does, and asks `admit` in the serial context
    /// when the action's turn comes: if it says no, the action is not processed and
    /// `completion` gets `.withdrawn`. A host uses it to drop the queued actions of a sender
    /// that has gone, or all of them when it shuts down, instead of running a backlog for
    /// nobody.
    public func send(
        _ action: R.Action,
        admit: @escaping @Sendable () -> Bool,
        completion: @escaping @Sendable (ActionOutcome) -> Void
    ) {
        submit(action, ActionRequest(completion: completion, admit: admit))
    }

    /// Queues `action` as `send(_:admit:completion:)` does (`admit` nil: always admitted),
    /// and calls `applied` in the serial context once the action's immediate mutations have
    /// been reduced: those its effect emits at once, before any delay or asynchronous work
    /// (a `.just`, the synchronous parts of a `.concat`). `applied` runs after `completion`
    /// and before anything else is processed; it is not called for an action that was
    /// refused, failed or withdrawn. A host uses it to say which state version first
    /// includes the action (PROTOCOL.md "Acks", `applied`).
    public func send(
        _ action: R.Action,
        admit: (@Sendable () -> Bool)?,
        completion: @escaping @Sendable (ActionOutcome) -> Void,
        applied: @escaping @Sendable () -> Void
    ) {
        submit(action, ActionRequest(completion: completion, admit: admit, applied: applied))
    }

    /// Queues `action` from `sender` (nil: the server itself) as
    /// `send(_:admit:completion:applied:)` does; `label` names it in a trap report.
    package func send(
        _ action: R.Action,
        from sender: Sender?,
        label: TrapLabel? = nil,
        admit: (@Sendable () -> Bool)?,
        completion: @escaping @Sendable (ActionOutcome) -> Void,
        applied: @escaping @Sendable () -> Void
    ) {
        submit(action, ActionRequest(sender: sender, completion: completion, admit: admit, applied: applied, label: label))
    }

    /// Tells the reactor that a connection joined or left: it becomes the action of
    /// `Reactor.action(for:)` (run from the member) or the mutation of
    /// `Reactor.mutation(for:)`, or nothing. Processed in order with the actions.
    public func send(_ membership: Membership) {
        enqueue(.membership(membership))
    }

    /// Whether a timer or an effect task is still in flight.
    public var hasEffectsInFlight: Bool {
        inbox.hasPendingOperations
    }

    /// Returns once nothing is queued, nothing is being processed and no effect is in flight.
    ///
    /// With a `TestClock`, a pending delay or sleep keeps the runtime busy until the clock is
    /// advanced; an effect that never ends keeps it busy for ever.
    public func waitUntilIdle() async {
        await inbox.waitUntilIdle()
    }

    /// Cancels every effect in flight, as if each were cancelled by id; effects of actions sent
    /// after this call run normally.
    public func cancelAllEffects() {
        enqueue(.cancelAll)
    }

    /// Waits until the runtime has settled: nothing queued or processed, and every effect task
    /// parked on `send` or a `TestClock`. Returns false if `timeout` passed first.
    package func settle(timeout: Duration) async -> Bool {
        await inbox.settle(timeout: timeout)
    }

    @inline(__always)
    private func submit(_ action: R.Action, _ request: ActionRequest) {
        if stubEnabled.load(ordering: .acquiring) {
            stubActions.withLock { $0.append(action) }
            request.completion?(.accepted)
            request.applied?()
            return
        }
        enqueue(.action(action, request))
    }

    /// Queues `item`, starting a drain if the serial context was idle; false if the runtime is
    /// closing. With `parking`, the effect task sending it parks (see `EffectParking`).
    @discardableResult
    @inline(__always)
    func enqueue(_ item: RuntimeItem<R>, parking: Bool = false) -> Bool {
        switch inbox.append(item, parking: parking) {
        case .queued:
            return true
        case .startDrain:
            scheduleDrain()
            return true
        case .closed:
            return false
        }
    }

    /// Runs a drain on the runtime's queue; the closure keeps the runtime alive until it ends.
    func scheduleDrain() {
        queue.async { self.drain() }
    }

    /// Continues a drain once the work already waiting for the pool's threads has had its
    /// turn. Not `queue.async` alone: a serial queue runs what it has on the thread it holds,
    /// so a block it queues for itself runs at once; the hop through the global queue puts
    /// the drain behind the others (other runtimes, signal sources, Swift tasks).
    func scheduleDrainAfterOthers() {
        DispatchQueue.global().async { self.queue.async { self.drain() } }
    }
}
