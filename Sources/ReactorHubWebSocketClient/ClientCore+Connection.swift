import ReactorHubLibWebSockets
import ReactorHubProtocol
import ReactorHubLogging

/// The life of one client connection on the service thread: the upgrade, messages both
/// ways, and its end.
extension ClientCore {
    /// Adds the request's headers to the upgrade request; -1 when they do not fit.
    func appendHeaders(
        _ connection: ClientConnection,
        wsi: OpaquePointer,
        at position: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        room: Int
    ) -> Int32 {
        guard let start = position.pointee else { return 0 }
        let end = start + room
        for (name, value) in zip(connection.headerNames, connection.headerValues) {
            let appended = name.withUnsafeBufferPointer { name in
                value.withUnsafeBufferPointer { value in
                    LWS.appendHandshakeHeader(wsi, name: name.baseAddress, value: value.baseAddress, valueLength: Int32(value.count - 1), position, end)
                }
            }
            if !appended {
                logger.warning("the upgrade request headers do not fit", metadata: ["connection": connection.id.description])
                return -1
            }
        }
        return 0
    }

    /// The server answered the upgrade: keep its status (a refusal is reported with it)
    /// and the subprotocol it selected.
    func readUpgradeReply(_ connection: ClientConnection, wsi: OpaquePointer) {
        connection.httpStatus = LWS.clientHTTPStatus(wsi)
        connection.subprotocol = header(wsi, .protocol)
    }

    /// The upgrade succeeded.
    func opened(_ connection: ClientConnection) {
        connection.phase = .open
        connection.delegate.webSocketOpened(connection.id, subprotocol: connection.subprotocol)
        if connection.pendingClose != nil || connection.hasOutput {
            requestWritable(connection)
        }
    }

    /// A chunk of an inbound message arrived.
    func receive(_ chunk: UnsafeRawBufferPointer, on connection: ClientConnection) -> Int32 {
        guard connection.pendingClose == nil, let wsi = connection.wsi else { return 0 }
        let outcome = connection.assembler.receive(
            chunk,
            isBinary: LWS.frameIsBinary(wsi),
            isFinalFrame: LWS.isFinalFragment(wsi),
            remainingInFrame: LWS.remainingPacketPayload(wsi)
        )
        switch outcome {
        case .incomplete:
            return 0
        case .message(let bytes):
            connection.delegate.webSocket(connection.id, received: bytes)
            return 0
        case .binaryMessage:
            // The client's assembler refuses binary frames (it never accepts them).
            return closeNow(connection, code: .unsupportedData, reason: "binary frames are not accepted")
        case .refuse(let code, let reason):
            logger.debug("closing client connection: \(reason)", metadata: ["connection": connection.id.description])
            return closeNow(connection, code: code, reason: reason)
        }
    }

    /// The socket can take more: writes queued messages until none is left or the socket
    /// would block. lws masks a client's payload in place, so each message is written once.
    func writable(_ connection: ClientConnection) -> Int32 {
        connection.writableRequested = false
        guard let wsi = connection.wsi else { return -1 }
        if let close = connection.pendingClose {
            return closeNow(connection, code: close.code, reason: close.reason)
        }
        while let message = connection.popOutput() {
            if LWS.writeText(wsi, message.payloadPointer, message.count) < 0 {
                logger.debug("client write failed; closing", metadata: ["connection": connection.id.description])
                return -1
            }
            if connection.hasOutput && LWS.sendPipeChoked(wsi) {
                requestWritable(connection)
                return 0
            }
        }
        return 0
    }

    /// Sets the close status and tells lws to close (by returning -1 from the callback).
    func closeNow(_ connection: ClientConnection, code: CloseCode, reason: String) -> Int32 {
        guard let wsi = connection.wsi else { return -1 }
        connection.sentClose = (code, reason)
        var bytes = Array(reason.utf8.prefix(123))
        LWS.setCloseReason(wsi, code: code.rawValue, reason: &bytes, length: bytes.count)
        return -1
    }

    /// The connection failed before it opened: an HTTP refusal is final, anything else
    /// moves on to the next address.
    func connectionError(_ connection: ClientConnection, message: String) {
        connection.wsi = nil
        if connection.pendingClose != nil {
            finish(connection, failure: WebSocketClientError(.cancelled, "the connection was closed before it opened"))
            return
        }
        if let status = connection.httpStatus, status != 101, status != 0 {
            finish(connection, failure: WebSocketClientError(
                .upgradeRefused,
                "the server refused the WebSocket upgrade with HTTP \(status)",
                httpStatus: status
            ))
            return
        }
        connection.lastFailure = message
        connection.phase = .resolving
        if connection.addresses.isEmpty {
            startAttempt(connection)  // reports the failure
        } else {
            post(.retry(connection.id))
        }
    }

    /// The open connection is gone: forget it and tell its delegate.
    func closed(_ connection: ClientConnection) {
        connections[connection.id.rawValue] = nil
        connection.wsi = nil
        let (code, reason) = connection.sentClose ?? connection.peerClose ?? (.abnormal, "connection lost")
        connection.delegate.webSocketClosed(connection.id, code: code, reason: reason)
    }

    /// Reads a close frame's payload: a big-endian status and a UTF-8 reason.
    static func parseClosePayload(_ payload: UnsafeRawBufferPointer) -> (code: CloseCode, reason: String) {
        guard payload.count >= 2 else { return (.noStatus, "") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        let reason = String(decoding: payload[2...], as: UTF8.self)
        return (CloseCode(rawValue: code), reason)
    }

    private func header(_ wsi: OpaquePointer, _ token: LWSToken) -> String? {
        let length = LWS.headerLength(wsi, token)
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        let copied = LWS.copyHeader(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
