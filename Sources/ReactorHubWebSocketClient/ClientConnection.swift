import ReactorHubProtocol
/// The service thread's state for one client connection, from the first connect attempt
/// to its end. Only the service thread touches it; lws finds it by the connection's number
/// (kept as the wsi's opaque user data), never by a pointer, so a late callback for a wsi
/// that is gone finds nothing instead of freed memory.
final class ClientConnection {
    enum Phase {
        /// Waiting for the host name to resolve, or between two addresses.
        case resolving
        /// lws is connecting, handshaking TLS or waiting for the upgrade reply.
        case connecting
        /// The WebSocket is open.
        case open
    }

    let id: ClientConnectionID
    let request: WebSocketClientRequest
    let delegate: any WebSocketClientDelegate
    /// `Name: value` lines are appended from these, already as C strings.
    let headerNames: [[CChar]]
    let headerValues: [[CChar]]
    var phase = Phase.resolving
    var wsi: OpaquePointer?
    /// The addresses left to try, first one next.
    var addresses: [String] = []
    /// Why the last address failed, reported if none is left.
    var lastFailure: String?
    var assembler: InboundAssembler
    /// Messages waiting for the socket, oldest first, from `outboundHead` on.
    var outbound: [OutboundMessage] = []
    var outboundHead = 0
    /// A close this side asked for, carried out from the writable callback.
    var pendingClose: (code: CloseCode, reason: String)?
    /// The close status received from the server, if it sent a close frame.
    var peerClose: (code: CloseCode, reason: String)?
    /// The close status this side sent.
    var sentClose: (code: CloseCode, reason: String)?
    /// The HTTP status of the upgrade reply, once read.
    var httpStatus: Int?
    /// The subprotocol the server selected, read with the upgrade reply.
    var subprotocol: String?
    var writableRequested = false

    init(id: ClientConnectionID, request: WebSocketClientRequest, delegate: any WebSocketClientDelegate, maxMessageBytes: Int) {
        self.id = id
        self.request = request
        self.delegate = delegate
        self.assembler = InboundAssembler(maxMessageBytes: maxMessageBytes)
        self.headerNames = request.headers.map { Array(($0.name + ":").utf8CString) }
        self.headerValues = request.headers.map { Array($0.value.utf8CString) }
    }

    var hasOutput: Bool { outboundHead < outbound.count }

    /// The next message to write, removed from the queue.
    func popOutput() -> OutboundMessage? {
        guard hasOutput else { return nil }
        let message = outbound[outboundHead]
        outboundHead += 1
        if outboundHead == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundHead = 0
        } else if outboundHead >= 64 && outboundHead * 2 >= outbound.count {
            outbound.removeFirst(outboundHead)
            outboundHead = 0
        }
        return message
    }

    /// The opaque user data lws keeps for this connection: its number, not a pointer.
    var opaqueUserData: UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue))
    }

    static func number(from opaque: UnsafeMutableRawPointer?) -> UInt64? {
        guard let opaque else { return nil }
        return UInt64(UInt(bitPattern: opaque))
    }
}
