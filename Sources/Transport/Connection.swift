import Synchronization

/// Counters of one connection readable from any thread.
final class ConnectionCounters: Sendable {
    /// Payload bytes queued and not yet handed to the socket.
    let queuedBytes = Atomic<Int>(0)
}

/// The service thread's state for one open WebSocket connection. Only the service
/// thread touches it; lws keeps a retained reference in the session's user data.
final class Connection {
    /// A close the server decided on, carried out from the writable callback.
    struct PendingClose {
        var code: CloseCode
        var reason: String
        /// Write what is queued first (shutdown), or drop it (protocol violations).
        var afterFlush: Bool
    }

    let id: ConnectionID
    let wsi: OpaquePointer
    let counters = ConnectionCounters()
    var queue: OutboundQueue
    var assembler: InboundAssembler
    var pendingClose: PendingClose?
    /// The close status received from the peer, if it sent a close frame.
    var peerClose: (code: CloseCode, reason: String)?
    /// The close status this side sent.
    var sentClose: (code: CloseCode, reason: String)?
    var writableRequested = false

    init(id: ConnectionID, wsi: OpaquePointer, queueLimit: Int, maxMessageBytes: Int) {
        self.id = id
        self.wsi = wsi
        self.queue = OutboundQueue(limit: queueLimit)
        self.assembler = InboundAssembler(maxMessageBytes: maxMessageBytes)
    }

    func publishQueueSize() {
        counters.queuedBytes.store(queue.bytes, ordering: .relaxed)
    }
}
