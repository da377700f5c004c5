internal import CLibWebSockets
import Logging

/// The WebSocket side of the service thread: opening, receiving, writing, closing.
extension ServerCore {
    static func connection(in session: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Connection? {
        guard let stored = session?.pointee else { return nil }
        return Unmanaged<Connection>.fromOpaque(stored).takeUnretainedValue()
    }

    /// Reads a close frame's payload: a big-endian status and a UTF-8 reason.
    static func parseClosePayload(_ payload: UnsafeRawBufferPointer) -> (code: CloseCode, reason: String) {
        guard payload.count >= 2 else { return (.noStatus, "") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        let reason = String(decoding: payload[2...], as: UTF8.self)
        return (CloseCode(rawValue: code), reason)
    }

    /// A WebSocket upgrade was negotiated: register the connection and tell the handler.
    func established(_ wsi: OpaquePointer, session: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
        guard let session else { return -1 }
        nextConnectionNumber += 1
        let id = ConnectionID(rawValue: nextConnectionNumber)
        let connection = Connection(id: id, wsi: wsi, maxMessageBytes: configuration.maxMessageBytes)
        session.pointee = Unmanaged.passRetained(connection).toOpaque()
        connections[id] = connection
        connectionCount.add(1, ordering: .relaxed)

        let offeredProtocols = header(wsi, rh_lws_token_protocol()) ?? ""
        let info = ConnectionInfo(
            id: id,
            path: header(wsi, rh_lws_token_get_uri()) ?? configuration.webSocketPath,
            origin: header(wsi, rh_lws_token_origin()),
            subprotocol: offeredProtocols.isEmpty ? nil : configuration.subprotocol,
            peerAddress: peerAddress(wsi),
            query: queryArguments(wsi),
            authorization: header(wsi, rh_lws_token_authorization())
        )
        handler.connectionOpened(info)
        return 0
    }

    /// A chunk of an inbound message arrived.
    func receive(_ chunk: UnsafeRawBufferPointer, on connection: Connection) -> Int32 {
        guard connection.pendingClose == nil else { return 0 }
        let outcome = connection.assembler.receive(
            chunk,
            isBinary: lws_frame_is_binary(connection.wsi) != 0,
            isFinalFrame: lws_is_final_fragment(connection.wsi) != 0,
            remainingInFrame: Int(lws_remaining_packet_payload(connection.wsi))
        )
        switch outcome {
        case .incomplete:
            return 0
        case .message(let bytes):
            handler.connection(connection.id, received: bytes)
            return 0
        case .refuse(let code, let reason):
            logger.debug(
                "closing connection: \(reason)",
                metadata: ["session": connection.id.description, "code": code.description]
            )
            return closeNow(connection, code: code, reason: reason)
        }
    }

    /// The socket can take more: pulls and writes messages until nothing waits or the
    /// socket would block (as lws' own mirror protocol does), then asks to be called again
    /// if output still waits.
    func writable(_ connection: Connection) -> Int32 {
        connection.writableRequested = false
        while true {
            if let close = connection.pendingClose, !close.afterFlush {
                return closeNow(connection, code: close.code, reason: close.reason)
            }
            guard let message = handler.nextOutput(for: connection.id) else {
                if let close = connection.pendingClose {
                    return closeNow(connection, code: close.code, reason: close.reason)
                }
                return 0
            }
            let written = rh_lws_write_text(connection.wsi, message.payloadPointer, message.count)
            if written < 0 {
                logger.debug("write failed; closing", metadata: ["session": connection.id.description])
                return -1
            }
            // Is there room for more now? (one poll, no wait)
            if lws_send_pipe_choked(connection.wsi) != 0 {
                requestWritable(connection)
                handler.connectionChoked(connection.id)
                return 0
            }
        }
    }

    /// Sets the close status and tells lws to close (by returning -1 from the callback).
    func closeNow(_ connection: Connection, code: CloseCode, reason: String) -> Int32 {
        connection.sentClose = (code, reason)
        var bytes = Array(reason.utf8.prefix(123))
        rh_lws_close_reason(connection.wsi, Int32(code.rawValue), &bytes, bytes.count)
        return -1
    }

    /// The connection is gone: release it and tell the handler.
    func closed(session: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let session, let stored = session.pointee else { return }
        session.pointee = nil
        let connection = Unmanaged<Connection>.fromOpaque(stored).takeRetainedValue()
        connections[connection.id] = nil
        let remaining = connectionCount.subtract(1, ordering: .relaxed).newValue
        let (code, reason) = connection.sentClose ?? connection.peerClose ?? Self.droppedClose(connection.pendingClose)
        handler.connectionClosed(connection.id, code: code, reason: reason)
        if remaining == 0 && refusingConnections.load(ordering: .relaxed) {
            allClosed.open()
        }
    }

    /// The status of a connection that ended without a close frame either way: the close
    /// the server had decided on, when its frame found no room in time; else 1006.
    static func droppedClose(_ pending: Connection.PendingClose?) -> (CloseCode, String) {
        guard let pending, !pending.afterFlush else { return (.abnormal, "connection lost") }
        return (pending.code, "\(pending.reason) (dropped: no room for the close frame)")
    }

    func header(_ wsi: OpaquePointer, _ token: Int32) -> String? {
        let length = rh_lws_hdr_total_length(wsi, token)
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        let copied = rh_lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        guard let name = lws_get_peer_simple(wsi, &buffer, buffer.count) else { return "unknown" }
        return String(cString: name)
    }
}
