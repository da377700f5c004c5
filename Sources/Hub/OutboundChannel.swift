public import Transport

/// Where the hub's messages go: the WebSocket server in the daemon, a recorder in tests.
public protocol OutboundChannel: AnyObject, Sendable {
    /// Queues `message` for one connection.
    func send(_ message: OutboundMessage, to id: ConnectionID)
    /// Queues the same `message` for every connection in `ids`.
    func send(_ message: OutboundMessage, to ids: [ConnectionID])
    /// Closes a connection with `code` once what is queued has been written.
    func close(_ id: ConnectionID, code: CloseCode, reason: String, afterFlush: Bool)
}

extension WebSocketServer: OutboundChannel {}
