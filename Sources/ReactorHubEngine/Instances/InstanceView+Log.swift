import ReactorHubJSON
import ReactorHubProtocol

/// The log side of a view: committed records in, deliveries out.
extension InstanceView {
    /// Applies committed records in order and delivers them: the replies to their senders,
    /// each connection's in order and all before the frames of the same records, each pulse
    /// after the patches before it, the patches as one frame per version, or, for a run of
    /// more than `coalescingThreshold`, as frames spanning several versions. A patch must
    /// continue the view (its base is the view's version); one that does not, or whose
    /// operations do not apply, stops the run there.
    /// While a subscriber asks for checksums (or lately did), each version's `sum` is
    /// computed once, kept with its frame, and those subscribers get frames that carry it.
    @discardableResult
    package func apply(_ records: some Collection<LogRecord>) -> ApplyEnd {
        contents.withLock { contents in
            // What every subscriber gets, in order, handed to delivery once at the end; the
            // same with sums for those who asked. Patches go in as they come; a run longer
            // than the coalescing threshold is merged in place when it ends (one array per
            // burst, however it is made up).
            let summing = !contents.summed.isEmpty
            var outgoing: [Outgoing] = []
            outgoing.reserveCapacity(records.count)
            var summedOutgoing: [Outgoing] = []
            if summing { summedOutgoing.reserveCapacity(records.count) }
            var run: [PatchFrame] = []
            var summedRun: [PatchFrame] = []
            var runStart = 0
            var summedRunStart = 0
            // The replies, by the connection they go to, handed over before the frames (as
            // they were when each went at once): one lock of a sender's outbox per burst,
            // not one per action, which its service thread, pulling the same outbox, would
            // meet.
            var replies = Replies()
            func flush() {
                if run.count > Self.coalescingThreshold {
                    outgoing.replaceSubrange(runStart..., with: coalesced(run))
                    if summing { summedOutgoing.replaceSubrange(summedRunStart..., with: coalesced(summedRun)) }
                }
                run.removeAll(keepingCapacity: true)
                summedRun.removeAll(keepingCapacity: true)
            }
            defer {
                flush()
                replies.send(through: context.delivery)
                if !outgoing.isEmpty { context.delivery.send(outgoing, to: contents.plain) }
                if summing, !summedOutgoing.isEmpty { context.delivery.send(summedOutgoing, to: contents.summed) }
            }
            for (offset, record) in records.enumerated() {
                switch record {
                case .reply(let reply):
                    replies.add(reply, resolve: resolve)
                case .pulse(let message):
                    flush()
                    outgoing.append(.pulse(stream, message))
                    if summing { summedOutgoing.append(.pulse(stream, message)) }
                case .patch(let frame, let state, let reply):
                    guard frame.base == contents.version else {
                        return .gap(at: offset)
                    }
                    let next: JSONValue
                    if let state {
                        next = state
                    } else if let applied = try? frame.withOperations({ try JSONPatch.apply(JSONParser().parse(Array($0)), to: contents.state) }) {
                        next = applied
                    } else {
                        return .broken(at: offset)
                    }
                    if let reply { replies.add(reply, resolve: resolve) }
                    let sum = contents.sumsVersions ? context.checksum.sum(of: next) : nil
                    if contents.summed.isEmpty, contents.summingTail > 0 { contents.summingTail -= 1 }
                    contents.state = next
                    contents.version = frame.version
                    contents.stateText = nil
                    contents.sum = sum
                    contents.history.append(frame, sum: sum)
                    let summedFrame = summing ? sum.map { frame.summed($0) } : nil
                    if records.count > Self.coalescingThreshold {
                        if run.isEmpty {
                            runStart = outgoing.count
                            summedRunStart = summedOutgoing.count
                        }
                        run.append(frame)
                        if let summedFrame { summedRun.append(summedFrame) }
                    }
                    outgoing.append(.patch(stream, frame))
                    if let summedFrame { summedOutgoing.append(.patch(stream, summedFrame)) }
                }
            }
            return .complete
        }
    }

    /// Starts the view afresh from `start` (a log read again); every subscriber gets a
    /// snapshot when the epoch or version moved or the view was stale.
    package func install(_ start: Start) {
        contents.withLock { contents in
            let changed = contents.stale || contents.epoch != start.epoch || contents.version != start.version
            var history = PatchHistory(capacity: context.historyCapacity, maxBytes: context.historyBytes)
            for frame in start.history {
                history.append(frame)
            }
            contents.epoch = start.epoch
            contents.version = start.version
            contents.state = start.state
            contents.stateText = nil
            contents.sum = nil
            contents.history = history
            contents.stale = false
            guard changed, !contents.subscribers.isEmpty else { return }
            context.metrics.snapshots.increment("resync")
            if !contents.plain.isEmpty {
                context.delivery.send([.snapshot(stream, snapshot(&contents, ref: nil))], to: contents.plain)
            }
            if !contents.summed.isEmpty {
                context.delivery.send([.snapshot(stream, snapshot(&contents, ref: nil, checksums: true))], to: contents.summed)
            }
        }
    }

    /// The log no longer holds the instance: resumes get snapshots until a new epoch.
    package func markStale() {
        contents.withLock { $0.stale = true }
    }

    package var isStale: Bool {
        contents.withLock { $0.stale }
    }

    /// The replies of one apply, in order for each connection (usually one: the sender of
    /// the burst's actions).
    private struct Replies {
        private var outputs: [ConnectionOutput] = []
        private var messages: [[Outgoing]] = []
        /// Past a few connections, where each one's replies are (a burst of many senders).
        private var positions: [ObjectIdentifier: Int] = [:]

        /// Adds a reply for its sender, when the sender is here.
        mutating func add(_ reply: LoggedReply, resolve: (ReplyAddress) -> ConnectionOutput?) {
            let output: ConnectionOutput
            switch reply.to {
            case nil:
                return
            case .connection(let direct):
                output = direct
            case .node(let address):
                guard let resolved = resolve(address) else { return }
                output = resolved
            }
            let position: Int?
            if outputs.count <= 8 {
                // A burst's replies mostly go to one or two connections: the last first.
                position = outputs.lastIndex { $0 === output }
            } else {
                if positions.isEmpty {
                    for (index, known) in outputs.enumerated() { positions[ObjectIdentifier(known)] = index }
                }
                position = positions[ObjectIdentifier(output)]
            }
            if let position {
                messages[position].append(.reply(reply.message))
            } else {
                if !positions.isEmpty { positions[ObjectIdentifier(output)] = outputs.count }
                outputs.append(output)
                messages.append([.reply(reply.message)])
            }
        }

        /// Hands each connection its replies, in order, at once.
        func send(through delivery: Delivery) {
            for (output, messages) in zip(outputs, messages) {
                delivery.send(messages, to: output)
            }
        }
    }

    /// A long run of frames merged, each merged frame kept under delivery's merged-frame
    /// limit.
    private func coalesced(_ frames: [PatchFrame]) -> [Outgoing] {
        let limit = context.delivery.limits.mergedFrameBytes
        var merged: [Outgoing] = []
        var start = 0
        while start < frames.count {
            var end = start + 1
            var size = frames[start].operationsCount
            while end < frames.count, size + frames[end].operationsCount <= limit {
                size += frames[end].operationsCount
                end += 1
            }
            merged.append(.patch(stream, context.codec.merge(frames[start..<end])))
            start = end
        }
        return merged
    }
}
