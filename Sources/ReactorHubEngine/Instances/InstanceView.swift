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
        /// The subscribers that get frames as they are.
        package var plain: [ConnectionOutput] = []
        /// The subscribers that asked for checksums: their frames carry `sum`.
        package var summed: [ConnectionOutput] = []
        package var epoch: String
        package var version: Int
        package var state: JSONValue
        /// The compact text of `state`, built on the first join after a change.
        package var stateText: [UInt8]?
        /// The checksum of `state`, once computed (nil: not yet).
        package var sum: String?
        /// Versions still summed with no subscriber asking: the history's length once the
        /// last one left, so that it can resume with checksums.
        package var summingTail = 0
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
        contents.withLock { $0.plain.count + $0.summed.count }
    }

    /// The epoch and version the view holds.
    package var position: (epoch: String, version: Int) {
        contents.withLock { ($0.epoch, $0.version) }
    }

    // MARK: Subscribers (service thread)

    /// Subscribes `output` and answers with a snapshot, or with `resumed` and the missed
    /// patches when `since` can be served from history; returns whether `output` was not
    /// subscribed before (a join, not a connection joining again). With `checksums`, those
    /// frames and every later one carry `sum` (the latest join's choice holds); a resume
    /// whose versions were not all summed gets a snapshot.
    @discardableResult
    package func join(_ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?, checksums: Bool = false) -> Bool {
        contents.withLock { contents in
            let previous = contents.remove(output)
            let wasSubscribed = previous != nil
            contents.add(output, checksums: checksums)
            if previous == .summed { contents.keepSumming(for: context.historyCapacity) }
            if let since, !wasSubscribed, !contents.stale, since.epoch == contents.epoch, since.version <= contents.version,
               let missed = resumption(from: since.version, &contents, checksums: checksums)
            {
                // `resumed` names the version the client holds; the missed patches continue from it.
                let resumed = context.codec.resumed(
                    addressText, ref: ref, epoch: contents.epoch, version: since.version, presence: presence.snapshot(), sum: missed.sum
                )
                context.delivery.send([.snapshot(stream, resumed)] + missed.frames.map { .patch(stream, $0) }, to: output)
                context.metrics.resumes.increment("resumed")
                return true
            }
            if since != nil { context.metrics.resumes.increment("snapshot") }
            context.metrics.snapshots.increment("join")
            context.delivery.send(.snapshot(stream, snapshot(&contents, ref: ref, checksums: checksums)), to: output)
            return !wasSubscribed
        }
    }

    /// The frames after `version` (with their sums for a client that asked) and the sum of
    /// `version` itself, or nil when history no longer holds them all, or holds them
    /// without the sums a client that asked needs.
    private func resumption(
        from version: Int, _ contents: inout Contents, checksums: Bool
    ) -> (frames: [PatchFrame], sum: String?)? {
        guard let missed = contents.history.entries(after: version, current: contents.version) else { return nil }
        guard checksums else { return (missed.map(\.frame), nil) }
        let sum = version == contents.version ? currentSum(&contents) : contents.history.sum(at: version)
        guard let sum else { return nil }
        var frames: [PatchFrame] = []
        frames.reserveCapacity(missed.count)
        for entry in missed {
            guard let frameSum = entry.sum else { return nil }
            frames.append(entry.frame.summed(frameSum))
        }
        return (frames, sum)
    }

    /// The committed state, as JSON (a kind's join rule reads it).
    package var committedState: JSONValue {
        contents.withLock { $0.state }
    }

    /// Unsubscribes `id`; returns whether it was subscribed.
    package func leave(_ id: ConnectionID) -> Bool {
        contents.withLock { contents in
            guard let subscriber = contents.subscriber(id) else { return false }
            if contents.remove(subscriber.output) == .summed { contents.keepSumming(for: context.historyCapacity) }
            return true
        }
    }

    /// Sends a fresh snapshot to `id` if it is still subscribed (after its lag).
    package func resync(_ id: ConnectionID) {
        contents.withLock { contents in
            guard let subscriber = contents.subscriber(id) else { return }
            context.metrics.snapshots.increment("resync")
            let message = snapshot(&contents, ref: nil, checksums: subscriber.checksums)
            context.delivery.send(.snapshot(stream, message), to: subscriber.output)
        }
    }

    /// Subscribes the connections of the instance this one replaced (a reset), each with a
    /// snapshot counted as `reset`.
    package func adopt(_ subscribers: [Subscriber]) {
        contents.withLock { contents in
            for subscriber in subscribers where contents.subscriber(subscriber.output.id) == nil {
                contents.add(subscriber.output, checksums: subscriber.checksums)
                context.metrics.snapshots.increment("reset")
                let message = snapshot(&contents, ref: nil, checksums: subscriber.checksums)
                context.delivery.send(.snapshot(stream, message), to: subscriber.output)
            }
        }
    }

    /// Detaches every subscriber and returns them.
    package func retire() -> [Subscriber] {
        contents.withLock { contents in
            defer {
                contents.plain = []
                contents.summed = []
            }
            return contents.plain.map { Subscriber($0, checksums: false) } + contents.summed.map { Subscriber($0, checksums: true) }
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

    /// A snapshot of the state held, with its `sum` when `checksums`.
    package func snapshot(_ contents: inout Contents, ref: Ref?, checksums: Bool = false) -> OutboundMessage {
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
            addressText, ref: ref, epoch: contents.epoch, version: contents.version, state: text, presence: presence.snapshot(),
            sum: checksums ? currentSum(&contents) : nil
        )
    }

    /// The checksum of the state held, computed once per version.
    package func currentSum(_ contents: inout Contents) -> String {
        if let sum = contents.sum { return sum }
        let sum = context.checksum.sum(of: contents.state)
        contents.sum = sum
        return sum
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

extension InstanceView.Contents {
    /// Every subscriber.
    package var subscribers: [ConnectionOutput] {
        summed.isEmpty ? plain : plain + summed
    }

    /// The subscriber `id` and whether it asked for checksums, if it is subscribed.
    package func subscriber(_ id: ConnectionID) -> Subscriber? {
        if let output = plain.first(where: { $0.id == id }) { return Subscriber(output, checksums: false) }
        return summed.first(where: { $0.id == id }).map { Subscriber($0, checksums: true) }
    }

    /// Subscribes `output`, with or without checksums.
    mutating func add(_ output: ConnectionOutput, checksums: Bool) {
        if checksums {
            summed.append(output)
        } else {
            plain.append(output)
        }
    }

    /// How a removed subscriber was subscribed.
    enum Removed {
        case plain, summed
    }

    /// Unsubscribes `output`; returns how it was subscribed (nil: it was not).
    mutating func remove(_ output: ConnectionOutput) -> Removed? {
        if let index = plain.firstIndex(where: { $0 === output }) {
            plain.remove(at: index)
            return .plain
        }
        guard let index = summed.firstIndex(where: { $0 === output }) else { return nil }
        summed.remove(at: index)
        return .summed
    }

    /// A subscriber that asked for checksums left: once none asks, versions are still
    /// summed `versions` more times, so that it can resume with them within the history's
    /// reach.
    mutating func keepSumming(for versions: Int) {
        if summed.isEmpty { summingTail = versions }
    }

    /// Whether the next version's checksum is computed (someone asks, or asked lately).
    var sumsVersions: Bool {
        !summed.isEmpty || summingTail > 0
    }
}
