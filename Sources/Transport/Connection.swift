/// The service thread's state for one open WebSocket connection. Only the service
/// thread touches it; lws keeps a retained reference in the session's user data.
final class Connection {
    /// A close the server decided on, carried out from the writable callback.
    struct PendingClose {
        var code: CloseCode
        var reason: String
        /// Write the waiting output first (shutdown), or drop it (protocol violations).
        var afterFlush: Bool
    }

    let id: ConnectionID
    let wsi: OpaquePointer
    var assembler: InboundAssembler
    var pendingClose: PendingClose?
    /// The close status received from the peer, if it sent a close frame.
    var peerClose: (code: CloseCode, reason: String)?
    /// The close status this side sent.
    var sentClose: (code: CloseCode, reason: String)?
    var writableRequested = false
    /// Reading was paused by the layer above (`setReading`).
    var readingPaused = false

    init(id: ConnectionID, wsi: OpaquePointer, maxMessageBytes: Int) {
        self.id = id
        self.wsi = wsi
        self.assembler = InboundAssembler(maxMessageBytes: maxMessageBytes)
    }
}
