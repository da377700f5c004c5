package import ReactorHubJSON
package import ReactorHubLocking
package import ReactorHubLogging
package import ReactorHubProtocol
package import Reactor
package import Synchronization

/// The one place an instance's actions are applied (DESIGN.md "one engine"): the reactor's
/// runtime, and the publisher that turns each new state into a version (encoded once,
/// diffed as text against the last), answers each action (`ack` with `version` and
/// `applied`, or `error`), remembers action ids, and hands each burst to the log. It has
/// no subscribers: what it produces reaches clients through the log and their views.
///
/// There is one owner per instance: in this process for a single daemon (a cluster of
/// one), on the node holding the lease in a cluster.
///
/// Safety of `@unchecked Sendable`: `published`, `burst` and `accepting` are touched only
/// from the runtime's serial context (the observer and the action callbacks), one call at
/// a time, and by `start()` before the runtime is observed; everything else is immutable,
/// behind a lock or atomic.
package final class InstanceOwner<R: Reactor>: @unchecked Sendable where R.Action: Decodable, R.State: Encodable {
    /// Where an action comes from (`ActionOrigin`).
    package typealias Origin = ActionOrigin

    /// What the serial context last published.
    package struct Published {
        package var state: JSONValue
        package var version: Int
        package var pulseCounts: PulseCounts
    }

    /// The action accepted and not yet applied: where its ack goes in the burst.
    package struct Accepting {
        package var index: Int
        package var version: Int
    }

    package let address: ReactorAddress
    package let addressText: String
    package let stream: StreamID
    package let context: ReactorKind.InstanceContext
    package let runtime: ReactorRuntime<R>
    /// How the reactor's states are encoded.
    let stateForm = StateEncoding.Form<R.State>()
    package let log: any InstanceLog
    package let logger: Logger
    /// The outcomes of action ids (PROTOCOL.md "Actions that are safe to resend"), and the
    /// resends waiting for one that is pending.
    package let actionIDs: Locked<ActionIDWindow<Origin>>
    /// Replaced (a reset) or no longer the owner: nothing more is published.
    package let retired = Atomic<Bool>(false)
    /// Actions of local senders sent to the runtime whose `mutate` has not run yet.
    package let pendingActions = Atomic<Int>(0)
    package var published: Published
    package var burst: [LogRecord] = []
    package var accepting: Accepting?
    /// Where each version's patch is written before it is framed, kept between versions
    /// (an allocation per version otherwise); let go of when a large patch grew it.
    var patchWriter = JSONWriter()
    private var observation: RuntimeObservation?

    /// An owner continuing from the committed `state` at `version`; `restored` is that
    /// state decoded (and adjusted by the kind), nil for the kind's initial state.
    package init(
        address: ReactorAddress, reactor: R, restored: R.State?, committed: JSONValue, version: Int,
        context: ReactorKind.InstanceContext, log: any InstanceLog
    ) {
        self.address = address
        self.addressText = address.description
        self.stream = context.stream
        self.context = context
        self.log = log
        self.logger = context.logger
        self.runtime = ReactorRuntime(
            reactor: reactor, logger: context.logger, restoredState: restored, trapLabel: context.trapLabel
        )
        self.actionIDs = Locked(ActionIDWindow(window: context.dedupeWindow, capacity: context.dedupeEntries))
        self.published = Published(state: committed, version: version, pulseCounts: PulseCounts())
    }

    /// Starts publishing: a state that differs from the committed one (the kind reset
    /// transient fields on restore, such as `isLoading`) is a change like any other, so
    /// that clients resuming from before see it. Call once, before any action.
    package func start() throws {
        let start = try StateEncoding.encode(runtime.currentState)
        published.pulseCounts = start.pulseCounts
        if start.state != published.state {
            publishChange(from: published.state, to: start.state)
            flush()
        }
        observation = runtime.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .state(let state):
                self.publish(state)
            case .drained:
                self.flush()
                self.context.load.drained(self.stream, instancePending: self.pendingActions.load(ordering: .relaxed))
            }
        }
    }

    /// Restores the ids a former owner answered (read back from a log that outlives it).
    package func remember(_ answered: [(id: String, reply: [UInt8], age: Duration)]) {
        let now = ContinuousClock.now
        actionIDs.withLock { window in
            for entry in answered {
                window.restore(entry.id, reply: entry.reply, at: now - entry.age)
            }
        }
    }

    // MARK: Actions (any thread)

    /// Applies `action` unless its id was answered (then that reply goes again, marked
    /// duplicate) or is pending (then the resend waits for the first answer).
    package func dispatch(_ action: R.Action, from sender: Origin, id: String?, label: TrapLabel? = nil) {
        guard !retired.load(ordering: .relaxed) else {
            return log.appendReply(LoggedReply(message: OwnerRefusal.message(ref: sender.ref, codec: context.codec), to: sender.target))
        }
        if let id {
            switch actionIDs.withLock({ $0.begin(id, waiter: sender, now: .now) }) {
            case .new:
                break
            case .pending:
                context.metrics.action(address.kind, "duplicate")
                return
            case .answered(let reply):
                context.metrics.action(address.kind, "duplicate")
                if let message = context.codec.duplicate(of: reply, ref: sender.ref) {
                    log.appendReply(LoggedReply(message: message, to: sender.target))
                }
                return
            }
        }
        let ticket = ActionTicket(owner: self, origin: sender, id: id, load: context.load)
        var admit: (@Sendable () -> Bool)?
        if let connection = sender.connection {
            let pending = pendingActions.add(1, ordering: .relaxed).newValue
            context.load.queued(from: connection.id, on: stream, instancePending: pending)
            admit = { ticket.admits() }
        }
        runtime.send(action, from: sender.sender, label: label, admit: admit) { outcome in
            ticket.answer(outcome)
        } applied: {
            ticket.applied()
        }
    }

    /// Tells the reactor that `membership.member` joined or left (PROTOCOL.md knows nothing
    /// of it: no reply, no ack).
    package func send(_ membership: Membership) {
        guard !retired.load(ordering: .relaxed) else { return }
        runtime.send(membership)
    }

    /// Publishes and commits nothing more.
    package func retire() {
        retired.store(true, ordering: .relaxed)
    }

    /// Returns once nothing is queued and no effect is running.
    package func waitUntilIdle() async {
        await runtime.waitUntilIdle()
    }

    /// No effect running.
    package var isIdle: Bool { !runtime.hasEffectsInFlight }
}

/// Where an action comes from: who sent it (for `mutate`), where its reply goes, and
/// the local connection whose load it counts towards.
package struct ActionOrigin: Sendable {
    package var target: ReplyTarget
    package var ref: Ref?
    /// Who sent it, as `Reactor.mutate(action:from:)` sees it; nil: the server itself.
    package var sender: Sender?
    /// The local connection that sent it, when its queued actions count towards its
    /// load (backpressure) and are withdrawn if it closes first.
    package var connection: ConnectionOutput?
    package var receivedAt: ContinuousClock.Instant = .now
    /// The action as it came (JSON), for the `action` event; nil when nobody hears it.
    package var action: JSONValue?

    package init(
        target: ReplyTarget, ref: Ref?, sender: Sender?, connection: ConnectionOutput? = nil,
        receivedAt: ContinuousClock.Instant = .now, action: JSONValue? = nil
    ) {
        self.target = target
        self.ref = ref
        self.sender = sender
        self.connection = connection
        self.receivedAt = receivedAt
        self.action = action
    }
}

extension InstanceOwner: ActionAnswering {}

/// What an owner does with one action once its runtime has taken it.
protocol ActionAnswering: AnyObject, Sendable {
    func answer(_ outcome: ActionOutcome, to sender: ActionOrigin, id: String?)
    func applied(_ sender: ActionOrigin, id: String?)
}

/// One action on its way through the runtime: the callbacks the runtime keeps for it
/// (admit, completion, applied) close over this object alone, one allocation per action
/// where each closure took its own, and reach the owner weakly, as they did.
final class ActionTicket: Sendable {
    weak let owner: (any ActionAnswering)?
    let origin: ActionOrigin
    let id: String?
    let load: ActionLoad

    init(owner: any ActionAnswering, origin: ActionOrigin, id: String?, load: ActionLoad) {
        self.owner = owner
        self.origin = origin
        self.id = id
        self.load = load
    }

    /// Whether the action is still to be processed when its turn comes (its connection is
    /// open and the hub is not draining); always, for an action without a connection.
    func admits() -> Bool {
        origin.connection.map(load.admits) ?? true
    }

    func answer(_ outcome: ActionOutcome) {
        owner?.answer(outcome, to: origin, id: id)
    }

    func applied() {
        owner?.applied(origin, id: id)
    }
}
