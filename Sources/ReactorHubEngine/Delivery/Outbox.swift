package import ReactorHubProtocol

/// What waits to be written to one connection, and the slow-reader policy of PROTOCOL.md,
/// as a value type driven by the hub and tested without sockets.
///
/// - Replies and snapshots are always kept, in order with everything else.
/// - Patches of one stream that piled up while the socket was full (the reader fell
///   behind) leave merged into one frame spanning their versions (`base`). A reader that
///   keeps up gets one frame per version, as it was published.
/// - When the backlog passes `limits.queueBytes` while the connection's socket is full
///   (its peer is not reading), every queued patch and pulse is shed; the streams whose
///   patches were shed become *lagging*: their later patches and pulses are dropped on
///   arrival, and once the outbox has drained it asks, once, for a snapshot of each. A
///   snapshot of a stream ends its lag.
/// - When even the replies pass `limits.overloadBytes` on a full socket, the connection
///   must be closed (1013).
///
/// Every operation costs O(1), amortised, whatever the backlog: shed entries become
/// tombstones reached through an index of droppable entries, never by a scan of the queue.
package struct Outbox {
    /// What `append` did.
    package enum AppendOutcome: Equatable {
        /// Queued; `wasEmpty` when the outbox had nothing waiting before (the transport
        /// must be told).
        case queued(wasEmpty: Bool)
        /// Dropped on arrival: its stream is lagging.
        case dropped
        /// Queued, then the backlog was shed: `shedMessages` patches and pulses dropped,
        /// `laggingStreams` now owe a snapshot.
        case shed(shedMessages: Int, laggingStreams: [StreamID])
        /// The replies alone exceed the overload bound on a full socket: close with 1013.
        case overloaded
    }

    /// A queued message, and how many times the socket had filled up when it was queued.
    private struct Entry {
        package var outgoing: Outgoing
        package var chokeMark: UInt64
    }

    package let limits: DeliveryLimits
    private var entries: [Entry?] = []
    /// Index of the first live entry in `entries`.
    private var head = 0
    /// Positions of queued patches and pulses, oldest first (some may already be gone).
    private var droppable: [Int] = []
    private var droppableHead = 0
    /// Payload bytes waiting.
    private(set) var bytes = 0
    /// Messages waiting.
    private(set) var count = 0
    /// Streams whose updates are dropped until a snapshot arrives, in lag order.
    private(set) var laggingStreams: [StreamID] = []
    private var laggingSet: Set<StreamID> = []
    private var resyncAsked = false
    /// The socket filled up with output waiting; cleared when the transport pulls again.
    private(set) var isChoked = false
    /// Times the socket filled up: an entry queued before the last time waited through a
    /// full socket, so its connection fell behind.
    private var chokes: UInt64 = 0
    /// What was taken for writing: patch frames, the versions they carried, pulses, and
    /// writes that carried several merged patches (metrics).
    private(set) var written = WrittenCounts()
    /// Queued entries the shedding visited, ever: each entry at most once (tests hold the
    /// policy to O(1) per message with it).
    private(set) var shedVisits = 0
    /// Closed (overloaded, or the connection is gone): nothing is queued any more.
    private(set) var isClosed = false

    /// The most entries whose buffers a drained outbox keeps.
    static let keptCapacity = 4

    package init(limits: DeliveryLimits) {
        self.limits = limits
    }

    package var isEmpty: Bool { count == 0 }

    /// Queues `entry` under the policy. Under `pressure` (all outboxes together hold more
    /// than `limits.outboundBudgetBytes`), a full socket sheds at a quarter of the limit.
    package mutating func append(_ entry: Outgoing, pressure: Bool = false) -> AppendOutcome {
        if isClosed { return .dropped }
        switch entry {
        case .patch(let stream, _), .pulse(let stream, _), .presence(let stream, _):
            if laggingSet.contains(stream) { return .dropped }
        case .snapshot(let stream, _):
            if laggingSet.remove(stream) != nil {
                laggingStreams.removeAll { $0 == stream }
                if laggingStreams.isEmpty { resyncAsked = false }
            }
        case .reply:
            break
        }
        let wasEmpty = count == 0
        if entry.isDroppable {
            droppable.append(entries.count)
        }
        // Queued while the socket is full: it waits through this choke, so the next pull may
        // merge it (it was marked with the count of chokes after it, and so waited for
        // another choke that a peer reading again never causes).
        entries.append(Entry(outgoing: entry, chokeMark: isChoked ? chokes - 1 : chokes))
        bytes += entry.byteCount
        count += 1
        return enforce(pressure: pressure) ?? .queued(wasEmpty: wasEmpty)
    }

    /// The transport found the socket full with output still waiting.
    package mutating func choke() -> AppendOutcome? {
        isChoked = true
        chokes += 1
        return enforce()
    }

    /// Takes the next message to write: the head, or, when the head waited through a full
    /// socket, the run of patches of its stream behind it, merged into one. Clears the choked state (the transport
    /// pulls only when the socket can take more).
    package mutating func next() -> OutboundMessage? {
        isChoked = false
        skipTombstones()
        guard head < entries.count, let first = entries[head] else { return nil }
        guard case .patch(let stream, let frame) = first.outgoing, first.chokeMark < chokes else {
            return count(take())
        }
        var run = [frame]
        var size = frame.message.count
        var index = head + 1
        while index < entries.count, run.count < limits.mergedFrameCount {
            guard let candidate = entries[index] else {
                index += 1
                continue
            }
            guard case .patch(stream, let next) = candidate.outgoing,
                  run[run.count - 1].isFollowed(by: next),
                  size + next.message.count <= limits.mergedFrameBytes
            else { break }
            run.append(next)
            size += next.message.count
            index += 1
        }
        guard run.count > 1 else { return count(take()) }
        for _ in run { _ = take() }
        written.mergedWrites += 1
        written.patchFrames += 1
        written.updates += run.last!.version - run.first!.base
        return PatchFrame.merge(run, headroom: run[run.startIndex].message.headroom).message
    }

    /// What one pull found: the next message (nil when nothing waits), whether the outbox
    /// is empty after it (its next append wakes the transport again), and the streams to
    /// resync now that it drained (`takeResyncRequest`).
    package struct Pull {
        package var message: OutboundMessage?
        package var isLast = true
        package var resync: [StreamID] = []
    }

    /// `next()`, and whether that emptied the outbox, in one step: a transport that is
    /// told it took the last message need not pull again to find nothing.
    package mutating func pull() -> Pull {
        let message = next()
        guard count == 0 else { return Pull(message: message, isLast: false) }
        return Pull(message: message, isLast: true, resync: takeResyncRequest())
    }

    /// The streams to resync now that the outbox has drained: returned once per lag
    /// episode, when nothing waits and some streams lag.
    package mutating func takeResyncRequest() -> [StreamID] {
        guard count == 0, !laggingStreams.isEmpty, !resyncAsked else { return [] }
        resyncAsked = true
        return laggingStreams
    }

    /// Drops everything and takes nothing more (the connection is closing).
    package mutating func close() {
        isClosed = true
        entries = []
        head = 0
        droppable = []
        droppableHead = 0
        bytes = 0
        count = 0
    }

    // MARK: Policy

    private mutating func enforce(pressure: Bool = false) -> AppendOutcome? {
        guard isChoked, bytes > (pressure ? limits.queueBytes / 4 : limits.queueBytes), count > 1 else { return nil }
        let (shed, newlyLagging) = shedDroppable()
        if bytes > limits.overloadBytes {
            close()
            return .overloaded
        }
        guard shed > 0 else { return nil }
        return .shed(shedMessages: shed, laggingStreams: newlyLagging)
    }

    /// Turns every queued patch and pulse into a tombstone; patches' streams start lagging.
    private mutating func shedDroppable() -> (Int, [StreamID]) {
        var shed = 0
        var newlyLagging: [StreamID] = []
        while droppableHead < droppable.count {
            let index = droppable[droppableHead]
            droppableHead += 1
            shedVisits += 1
            guard index >= head, let entry = entries[index]?.outgoing else { continue }
            if let stream = entry.laggingStream, laggingSet.insert(stream).inserted {
                newlyLagging.append(stream)
            }
            entries[index] = nil
            bytes -= entry.byteCount
            count -= 1
            shed += 1
        }
        droppable.removeAll(keepingCapacity: true)
        droppableHead = 0
        if !newlyLagging.isEmpty {
            laggingStreams.append(contentsOf: newlyLagging)
            resyncAsked = false
        }
        skipTombstones()
        return (shed, newlyLagging)
    }

    private mutating func count(_ entry: Outgoing) -> OutboundMessage {
        switch entry {
        case .patch(_, let frame):
            written.patchFrames += 1
            written.updates += frame.version - frame.base
        case .pulse:
            written.pulses += 1
        case .reply, .snapshot, .presence:
            break
        }
        return entry.message
    }

    private mutating func take() -> Outgoing {
        let entry = entries[head]!.outgoing
        entries[head] = nil
        head += 1
        bytes -= entry.byteCount
        count -= 1
        skipTombstones()
        return entry
    }

    private mutating func skipTombstones() {
        while head < entries.count, entries[head] == nil {
            head += 1
        }
        if head == entries.count {
            // Drained. Small buffers stay for the next message: a subscriber that keeps up
            // drains after each one, and allocating and freeing both again per message was
            // a fan-out's largest allocation. A backlog's large buffers go (an idle
            // connection keeps at most these few entries; BENCHMARKS.md, "Idle memory per
            // connection (issue 38)").
            if entries.capacity > Self.keptCapacity { entries = [] } else { entries.removeAll(keepingCapacity: true) }
            if droppable.capacity > Self.keptCapacity { droppable = [] } else { droppable.removeAll(keepingCapacity: true) }
            head = 0
            droppableHead = 0
        } else if head > 4096 && head * 2 > entries.count {
            compact()
        }
    }

    /// Moves the live entries to the front, so that the array does not grow forever under
    /// a steady backlog; renumbers the droppable index. O(live entries), at most once per
    /// `head` entries taken, so O(1) amortised.
    private mutating func compact() {
        let offset = head
        entries.removeFirst(offset)
        head = 0
        droppable = droppable[droppableHead...].compactMap { $0 >= offset ? $0 - offset : nil }
        droppableHead = 0
    }
}

/// Counts of what an outbox handed to its socket.
package struct WrittenCounts: Sendable, Equatable {
    package var patchFrames = 0
    package var updates = 0
    package var pulses = 0
    package var mergedWrites = 0

    package static func + (lhs: WrittenCounts, rhs: WrittenCounts) -> WrittenCounts {
        WrittenCounts(
            patchFrames: lhs.patchFrames + rhs.patchFrames, updates: lhs.updates + rhs.updates,
            pulses: lhs.pulses + rhs.pulses, mergedWrites: lhs.mergedWrites + rhs.mergedWrites
        )
    }
}
