/// Receives the server's events, on the server's service thread.
///
/// Implementations must return quickly and never block: every connection is served by
/// this one thread. Hand real work to another executor.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// A WebSocket upgrade completed.
    func connectionOpened(_ connection: ConnectionInfo)
    /// A whole text message arrived (fragments already reassembled; valid UTF-8).
    func connection(_ id: ConnectionID, received message: [UInt8])
    /// The connection is gone; `code` is the close status sent or received, 1006 when
    /// the peer vanished without a close frame.
    func connectionClosed(_ id: ConnectionID, code: CloseCode, reason: String)
    /// The connection's queue drained after its updates of `streams` were discarded:
    /// send a `resync` message for each stream still wanted.
    func connection(_ id: ConnectionID, needsResyncOf streams: [StreamID])
}
