package import ReactorHubProtocol
package import ReactorHubJSON
package import Reactor

/// One shared reactor instance as the hub sees it, whatever its reactor type.
package protocol HubInstance: AnyObject, Sendable {
    /// The instance's address, `KIND/ID`.
    var address: ReactorAddress { get }
    /// The tag of the instance's updates in the delivery policy.
    var stream: StreamID { get }
    /// Connections currently joined.
    var subscriberCount: Int { get }

    /// Subscribes `output` and answers with a snapshot, or with `resumed` and the missed
    /// patches when `since` can be served from history. Atomic with respect to patches.
    /// With `checksums`, its snapshots, `resumed` and patches carry `sum` (the latest
    /// join's choice holds). Returns the refusal of a join the kind's own rule does not
    /// allow (nothing was sent).
    func join(
        _ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?, checksums: Bool, sender: Sender
    ) -> ProtocolError?
    /// Unsubscribes `id`; returns whether it was subscribed.
    @discardableResult
    func leave(_ id: ConnectionID) -> Bool
    /// Decodes and dispatches an action from `output`. Decoding errors are returned at
    /// once; otherwise the ack or the refusal is sent from the reactor's serial context.
    /// An action with an `id` already answered gets that reply again, as a duplicate.
    func dispatch(
        _ action: ActionPayload, from output: ConnectionOutput, sender: Sender, id: String?, ref: Ref?, receivedAt: ContinuousClock.Instant
    ) -> ProtocolError?
    /// Sets (nil: clears) the presence of `output` (PROTOCOL.md "Presence"); acks with `ref`.
    func setPresence(_ output: ConnectionOutput, user: String?, state: [UInt8]?, ref: Ref?)
    /// Sends a fresh snapshot to `id` if it is still subscribed (after its lag).
    func resync(_ id: ConnectionID)
    /// Waits until no action is queued and no effect is running.
    func waitUntilIdle() async
    /// No effect running and nothing waiting for durability: safe to evict.
    var isIdle: Bool { get }
    /// Epoch, version, state and recent patches, as published (admin API).
    func inspect(history: Int) -> InstanceInspection
    /// Detaches every subscriber and returns them, and publishes nothing from now on (the
    /// instance is replaced: its effects still running must not reach the store).
    func retire() -> [Subscriber]
    /// Subscribes the connections of the instance this one replaced (a reset) and sends
    /// each a snapshot, counted as `reset` rather than as a join.
    func adopt(_ subscribers: [Subscriber])
    /// The hub dropped the instance from memory (idle eviction): release what it holds
    /// outside the process (a cluster lease, a subscription).
    func evicted()
    /// The epoch and version subscribers hold now.
    var position: (epoch: String, version: Int) { get }
    /// The committed state (the HTTP API's `GET`).
    func read() -> InstanceReading
    /// Runs `then` once this process's copy holds everything committed before the call
    /// (at once on a single daemon; in a cluster, after the log was read from Redis): a
    /// read that follows an answer given on any node includes what it acked.
    func catchUp(then: @escaping @Sendable () -> Void)
    /// The patches after `since` that the history still holds (the HTTP API's `…/patches`).
    func missed(since: ClientMessage.ResumePoint) -> MissedPatches
    /// Whether this process owns the instance (always on a single daemon; in a cluster,
    /// while it holds the lease): the owner is who tells the world about it (webhooks).
    var isOwner: Bool { get }
}

extension HubInstance {
    package func evicted() {}
    package func catchUp(then: @escaping @Sendable () -> Void) { then() }
    package var isOwner: Bool { true }
}

/// A connection subscribed to an instance, and whether it asked for checksums.
package struct Subscriber: Sendable {
    package var output: ConnectionOutput
    package var checksums: Bool

    package init(_ output: ConnectionOutput, checksums: Bool) {
        self.output = output
        self.checksums = checksums
    }
}

/// What the admin API shows of an instance.
package struct InstanceInspection: Sendable {
    package var epoch: String
    package var version: Int
    package var subscribers: [ConnectionOutput]
    package var state: JSONValue
    package var history: [PatchFrame]
}

/// An instance whose subscribers are served by an `InstanceView`: every kind of instance,
/// single-node or clustered, shows its committed log the same way.
package protocol ViewedInstance: HubInstance {
    var view: InstanceView { get }
}

extension ViewedInstance {
    package var address: ReactorAddress { view.address }
    package var stream: StreamID { view.stream }
    package var subscriberCount: Int { view.subscriberCount }


    package func resync(_ id: ConnectionID) {
        view.resync(id)
    }

    package func adopt(_ subscribers: [Subscriber]) {
        view.adopt(subscribers)
    }

    package func inspect(history: Int) -> InstanceInspection {
        view.inspect(history: history)
    }

    package var position: (epoch: String, version: Int) { view.position }

    package func read() -> InstanceReading {
        view.read()
    }

    package func missed(since: ClientMessage.ResumePoint) -> MissedPatches {
        view.missed(since: since)
    }
}
