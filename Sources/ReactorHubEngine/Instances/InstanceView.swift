package import Dispatch
package import ReactorHubJSON
package import ReactorHubLocking
package import ReactorHubProtocol

/// What every node shows of one instance: its subscribers, and the state, version and
/// recent patches of its committed log (DESIGN.md "one engine"). Fed only by committed
/// records, on the owner's node as on every other, so a client never sees a version its
/// log did not commit, and moving the owner changes nothing for subscribers.
///
/// Two sides touch it: the transport's service thread joins, leaves and resyncs; the log
/// applies committed records. Everything is handed to delivery while holding `contents`,
/// so a join's snapshot and the patches around it reach each outbox in version order.
package final class InstanceView: Sendable {
    /// Where a view starts: a committed state with the frames that led to it.
    package struct Start: Sendable {
        package var epoch: String
        package var version: Int
        package var state: JSONValue
        /// Consecutive frames ending at `version`, oldest first (may be empty).
        package var history: [PatchFrame] = []

        package init(epoch: String, version: Int, state: JSONValue, history: [PatchFrame] = []) {
            self.epoch = epoch
            self.version = version
            self.state = state
            self.history = history
        }
    }

    package struct Contents {
        package var subscribers: [ConnectionOutput] = []
        package var epoch: String
        package var version: Int
        package var state: JSONValue
        /// The compact text of `state`, built on the first join after a change.
        package var stateText: [UInt8]?
        package var history: PatchHistory
        /// The log no longer holds the instance (Redis lost it): no resume until a new epoch.
        package var stale = false
    }

    /// Why `apply` stopped before the end of the records.
    package enum ApplyEnd: Equatable {
        /// Every record was applied.
        case complete
        /// The record at this offset does not continue the view (a missed entry).
        case gap(at: Int)
        /// The record at this offset has operations that do not apply to the view's state.
        case broken(at: Int)
    }

    /// Bursts of more changes than this leave as frames spanning several versions.
    package static var coalescingThreshold: Int { 8 }
    /// Presence changes that pile up within this window leave as one frame.
    package static var presenceWindow: DispatchTimeInterval { .milliseconds(30) }

    package let address: ReactorAddress
    package let addressText: String
    package let stream: StreamID
    package let context: ReactorKind.InstanceContext
    /// Who is here (PROTOCOL.md "Presence").
    package let presence: PresenceRoom
    package let contents: Locked<Contents>
    /// Finds the local sender of a reply addressed to a node's token (nil: not this node's).
    package let resolve: @Sendable (ReplyAddress) -> ConnectionOutput?

    package init(
        address: ReactorAddress, context: ReactorKind.InstanceContext, start: Start,
        resolve: @escaping @Sendable (ReplyAddress) -> ConnectionOutput? = { _ in nil }
    ) {
        self.address = address
        self.addressText = address.description
        self.stream = context.stream
        self.context = context
        self.resolve = resolve
        self.presence = PresenceRoom(maxListed: context.presenceMaxListed)
        var history = PatchHistory(capacity: context.historyCapacity, maxBytes: context.historyBytes)
        for frame in start.history {
            history.append(frame)
        }
        self.contents = Locked(Contents(epoch: start.epoch, version: start.version, state: start.state, history: history))
    }

    package var subscriberCount: Int {
        contents.withLock { $0.subscribers.count }
    }

    /// The epoch and version the view holds.
    package var position: (epoch: String, version: Int) {
        contents.withLock { ($0.epoch, $0.version) }
    }

    // MARK: Subscribers (service thread)

    /// Subscribes `output` and answers with a snapshot, or with `resumed` and the missed
    /// patches when `since` can be served from history; returns whether `output` was not
    /// subscribed before (a join, not a connection joining again).
    @discardableResult
    package func join(_ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?) -> Bool {
        contents.withLock { contents in
            let wasSubscribed = contents.subscribers.contains { $0 === output }
            if !wasSubscribed {
                contents.subscribers.append(output)
            }
            if let since, !wasSubscribed, !contents.stale, since.epoch == contents.epoch, since.version <= contents.version,
               let missed = contents.history.frames(after: since.version, current: contents.version)
            {
                // `resumed` names the version the client holds; the missed patches continue from it.
                let resumed = context.codec.resumed(
                    addressText, ref: ref, epoch: contents.epoch, version: since.version, presence: presence.snapshot()
                )
                context.delivery.send([.snapshot(stream, resumed)] + missed.map { .patch(stream, $0) }, to: [output])
                context.metrics.resumes.increment("resumed")
                return true
            }
            if since != nil { context.metrics.resumes.increment("snapshot") }
            context.metrics.snapshots.increment("join")
            context.delivery.send(.snapshot(stream, snapshot(&contents, ref: ref)), to: output)
            return !wasSubscribed
        }
    }

    /// The committed state, as JSON (a kind's join rule reads it).
    package var committedState: JSONValue {
        contents.withLock { $0.state }
    }

    /// Unsubscribes `id`; returns whether it was subscribed.
    package func leave(_ id: ConnectionID) -> Bool {
        contents.withLock { contents in
            guard let index = contents.subscribers.firstIndex(where: { $0.id == id }) else { return false }
            contents.subscribers.remove(at: index)
            return true
        }
    }

    /// Sends a fresh snapshot to `id` if it is still subscribed (after its lag).
    package func resync(_ id: ConnectionID) {
        contents.withLock { contents in
            guard let output = contents.subscribers.first(where: { $0.id == id }) else { return }
            context.metrics.snapshots.increment("resync")
            context.delivery.send(.snapshot(stream, snapshot(&contents, ref: nil)), to: output)
        }
    }

    /// Subscribes the connections of the instance this one replaced (a reset), each with a
    /// snapshot counted as `reset`.
    package func adopt(_ outputs: [ConnectionOutput]) {
        contents.withLock { contents in
            for output in outputs where !contents.subscribers.contains(where: { $0 === output }) {
                contents.subscribers.append(output)
                context.metrics.snapshots.increment("reset")
                context.delivery.send(.snapshot(stream, snapshot(&contents, ref: nil)), to: output)
            }
        }
    }

    /// Detaches every subscriber and returns them.
    package func retire() -> [ConnectionOutput] {
        contents.withLock { contents in
            defer { contents.subscribers = [] }
            return contents.subscribers
        }
    }

    /// Epoch, version, state and recent patches (admin API).
    package func inspect(history: Int) -> InstanceInspection {
        contents.withLock { contents in
            InstanceInspection(
                epoch: contents.epoch, version: contents.version, subscribers: contents.subscribers, state: contents.state,
                history: contents.history.last(history)
            )
        }
    }

    package func snapshot(_ contents: inout Contents, ref: Ref?) -> OutboundMessage {
        let text: [UInt8]
        if let cached = contents.stateText {
            text = cached
        } else {
            var writer = JSONWriter()
            writer.writeValue(contents.state)
            text = writer.bytes
            contents.stateText = text
        }
        return context.codec.snapshot(
            addressText, ref: ref, epoch: contents.epoch, version: contents.version, state: text, presence: presence.snapshot()
        )
    }

    // MARK: Presence

    /// Sets (nil: clears) `session`'s presence; returns whether it changed. The change
    /// leaves with the next broadcast, coalesced over `presenceWindow`.
    @discardableResult
    package func setPresence(_ session: String, user: String?, state: [UInt8]?) -> Bool {
        let change = presence.set(session, user: user, state: state)
        if change.scheduleBroadcast {
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.presenceWindow) { [weak self] in
                self?.broadcastPresence()
            }
        }
        return change.changed
    }

    private func broadcastPresence() {
        contents.withLock { contents in
            guard let change = presence.takeBroadcast() else { return }
            let frame = context.codec.presence(addressText, change)
            context.delivery.send([.presence(stream, frame)], to: contents.subscribers)
        }
    }

    /// Sends `message` to `output` (a reply that does not go through the log: a presence ack).
    package func reply(_ message: OutboundMessage, to output: ConnectionOutput) {
        context.delivery.send(.reply(message), to: output)
    }
}
