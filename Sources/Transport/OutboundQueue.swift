/// One connection's outbound backlog and the slow-consumer policy of PROTOCOL.md, as a
/// value type the service thread drives and tests exercise without sockets.
///
/// - Reliable messages (replies) are always kept.
/// - When the backlog (of more than one message) passes `limit` while the peer's socket
///   is full (it is not reading), every queued state update and event is discarded;
///   the streams whose updates were discarded become *lagging*: later updates of theirs
///   are discarded on arrival, and once the queue has drained the owner is asked, once,
///   to resync them. A `resync` message ends a stream's lag.
/// - When the backlog still exceeds `4 × limit` after that, the connection is overloaded
///   and must be closed (1013).
struct OutboundQueue {
    /// What happened to a message handed to `append`.
    enum AppendOutcome: Equatable {
        /// Queued for writing.
        case queued
        /// Discarded because its stream is lagging.
        case discarded
        /// Queued, then the backlog passed the limit: `droppedMessages` were discarded and
        /// `laggingStreams` now owe a resync.
        case lagStarted(droppedMessages: Int, laggingStreams: [StreamID])
        /// Even after discarding, the backlog exceeds four times the limit.
        case overloaded
    }

    /// The backlog (in payload bytes) at which droppable messages are discarded.
    let limit: Int
    /// A queued message and the inbox drain it arrived in.
    private struct Entry {
        let message: OutboundMessage
        let arrival: UInt64
    }

    private var messages = RingBuffer<Entry>()
    /// Payload bytes currently queued.
    private(set) var bytes = 0
    /// Streams whose updates are being discarded until a resync arrives, in lag order.
    private(set) var laggingStreams: [StreamID] = []
    private var resyncRequested = false

    init(limit: Int) {
        self.limit = limit
    }

    /// Number of queued messages.
    var count: Int { messages.count }

    var isEmpty: Bool { messages.isEmpty }

    /// Queues `message` under the policy and says what happened. `peerIsChoked` is asked
    /// only when the backlog passes the limit: a backlog the socket can still take (the
    /// peer reads, the queue was just filled by a burst) is not lag.
    /// `arrival` numbers the service thread's inbox drains: updates that arrived in
    /// different drains and are still queued show a connection that fell behind.
    mutating func append(_ message: OutboundMessage, arrival: UInt64 = 0, peerIsChoked: () -> Bool = { true }) -> AppendOutcome {
        switch message.kind {
        case .stateUpdate(let stream), .event(let stream):
            if laggingStreams.contains(stream) { return .discarded }
        case .resync(let stream):
            if let index = laggingStreams.firstIndex(of: stream) {
                laggingStreams.remove(at: index)
                if laggingStreams.isEmpty { resyncRequested = false }
            }
        case .reliable:
            break
        }
        messages.append(Entry(message: message, arrival: arrival))
        bytes += message.count
        // One message alone is not a backlog, however large: it is written as it is.
        guard bytes > limit, messages.count > 1, peerIsChoked() else { return .queued }
        return shed()
    }

    /// Takes the next message to write.
    mutating func popFirst() -> OutboundMessage? {
        guard let entry = messages.popFirst() else { return nil }
        bytes -= entry.message.count
        return entry.message
    }

    /// Takes the run of consecutive state updates of one stream at the head of the queue
    /// (at most `maxMessages` and about `maxBytes`) when it holds updates that arrived in
    /// different drains, i.e. the connection fell behind; otherwise just the head. Updates
    /// that arrived together (one burst, which a connection that keeps up writes out before
    /// the next) keep one message each.
    mutating func popMergeableRun(maxMessages: Int, maxBytes: Int) -> [OutboundMessage] {
        guard let head = messages.first else { return [] }
        guard case .stateUpdate = head.message.kind, messages.count > 1 else { return [popFirst()!] }
        var length = 0
        var size = 0
        var fellBehind = false
        for index in 0..<min(messages.count, maxMessages) {
            let next = messages[index]
            guard next.message.kind == head.message.kind, length == 0 || size + next.message.count <= maxBytes else { break }
            size += next.message.count
            fellBehind = fellBehind || next.arrival != head.arrival
            length += 1
        }
        guard fellBehind, length > 1 else { return [popFirst()!] }
        return (0..<length).map { _ in popFirst()! }
    }

    /// Puts messages taken by `popMergeableRun` back at the head, in their order.
    mutating func pushFront(_ returned: ArraySlice<OutboundMessage>) {
        for message in returned.reversed() {
            messages.prepend(Entry(message: message, arrival: 0))
            bytes += message.count
        }
    }

    /// The streams to resync now that the queue has drained: returned once per lag
    /// episode, when the queue is empty and some streams are lagging.
    mutating func takeResyncRequest() -> [StreamID] {
        guard messages.isEmpty, !laggingStreams.isEmpty, !resyncRequested else { return [] }
        resyncRequested = true
        return laggingStreams
    }

    /// Discards everything (the connection is closing).
    mutating func removeAll() {
        messages.removeAll()
        bytes = 0
    }

    private mutating func shed() -> AppendOutcome {
        var dropped = 0
        var newlyLagging: [StreamID] = []
        messages.removeAll { entry in
            let message = entry.message
            switch message.kind {
            case .stateUpdate(let stream):
                if !laggingStreams.contains(stream) && !newlyLagging.contains(stream) {
                    newlyLagging.append(stream)
                }
            case .event:
                break
            case .reliable, .resync:
                return false
            }
            bytes -= message.count
            dropped += 1
            return true
        }
        laggingStreams.append(contentsOf: newlyLagging)
        if !newlyLagging.isEmpty { resyncRequested = false }
        if bytes > 4 * limit { return .overloaded }
        if dropped == 0 { return .queued }
        return .lagStarted(droppedMessages: dropped, laggingStreams: newlyLagging)
    }
}
