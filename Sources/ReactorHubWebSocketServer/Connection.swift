import ReactorHubProtocol
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
    /// The socket, the key of the receive tap's table.
    let fd: Int32
    var assembler: InboundAssembler
    /// permessage-deflate's inbound side, when the upgrade negotiated it.
    var inflation: InboundInflation?
    /// The upgrade negotiated permessage-deflate: long frames go compressed.
    var deflates: Bool { inflation != nil }
    /// The RFC 6455 checks on the raw stream (used when the receive tap is installed).
    var frames = FrameFilter()
    /// Messages to echo, for a connection to the echo path; nil for the layer above's.
    var echo: EchoQueue?
    /// A close the server decided on (kept in `closing`).
    var pendingClose: PendingClose? {
        get { closing?.pendingClose }
        set { if newValue != nil || closing != nil { closingState.pendingClose = newValue } }
    }
    /// The close status received from the peer, if it sent a close frame.
    var peerClose: (code: CloseCode, reason: String)? {
        get { closing?.peerClose }
        set { if newValue != nil || closing != nil { closingState.peerClose = newValue } }
    }
    /// The close status this side sent.
    var sentClose: (code: CloseCode, reason: String)? {
        get { closing?.sentClose }
        set { if newValue != nil || closing != nil { closingState.sentClose = newValue } }
    }
    var writableRequested = false
    /// A write made outside the writable callback (`ServerCore.writeNow`) failed: the
    /// connection is closed from its next writable callback.
    var writeFailed = false
    /// When the peer was last heard (`Keepalive.now()`): any byte through the receive tap,
    /// else a piece of a message or a pong lws reports.
    var lastHeard = Keepalive.now()
    /// A ping went out since then.
    var pinged = false
    /// A ping waits for the next writable callback.
    var pingOwed = false
    /// Why this side dropped the connection without a close frame (the keepalive), if it did.
    var droppedFor: String? {
        get { closing?.droppedFor }
        set { if newValue != nil || closing != nil { closingState.droppedFor = newValue } }
    }
    /// Reading was paused by the layer above (`setReading`).
    var readingPaused = false

    /// The close the writable callback carries out: one the layer above wants sent at
    /// once, else the one a protocol violation owes (after the output waiting), else one
    /// after the output waiting.
    var closeToSend: PendingClose? {
        if let pendingClose, !pendingClose.afterFlush { return pendingClose }
        if let failure = frames.failure { return PendingClose(code: failure.code, reason: failure.reason, afterFlush: true) }
        return pendingClose
    }

    /// What only a closing connection knows, allocated with the first of it: an open
    /// connection holds one nil reference instead of about 100 bytes of empty optionals
    /// (BENCHMARKS.md, "Idle memory per connection (issue 38)").
    private final class Closing {
        var pendingClose: PendingClose?
        var peerClose: (code: CloseCode, reason: String)?
        var sentClose: (code: CloseCode, reason: String)?
        var droppedFor: String?
    }

    private var closing: Closing?

    private var closingState: Closing {
        if let closing { return closing }
        let created = Closing()
        closing = created
        return created
    }

    init(id: ConnectionID, wsi: OpaquePointer, fd: Int32, assembler: InboundAssembler, echo: EchoQueue? = nil) {
        self.id = id
        self.wsi = wsi
        self.fd = fd
        self.assembler = assembler
        self.echo = echo
    }
}
