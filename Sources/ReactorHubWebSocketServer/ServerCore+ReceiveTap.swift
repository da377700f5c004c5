import ReactorHubProtocol
#if canImport(Glibc)
import Glibc
#endif
import ReactorHubLibWebSockets
import ReactorHubLogging

/// What the receive tap does with a socket's bytes, by the phase of its connection.
enum TappedSocket {
    /// An HTTP connection: its request heads are measured.
    case http(RequestHeadMeter)
    /// A WebSocket: its frames are checked.
    case webSocket(Connection)
    /// Answered 431, 400 or 501: what the client still sends is read and dropped until it closes.
    case refused
}

/// The service thread's side of the receive tap: which sockets are checked, and how.
extension ServerCore {
    /// A connection was accepted on `fd` (a number a closed socket may have had before).
    func socketAccepted(_ fd: Int32) {
        guard ReceiveTap.isInstalled else { return }
        tappedSockets[fd] = .http(RequestHeadMeter(limit: configuration.maxRequestHeadBytes))
    }

    /// The connection on `fd` is closing; its socket is no longer checked.
    func socketClosing(_ fd: Int32) {
        tappedSockets[fd] = nil
    }

    /// recv(2) for libwebsockets on the service thread: the bytes lws gets of `fd`.
    func tappedReceive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: Int32) -> Int {
        switch tappedSockets[fd] {
        case nil:
            return ReceiveTap.originalReceive(fd, into: buffer, flags: flags)
        case .http(var meter):
            let count = ReceiveTap.originalReceive(fd, into: buffer, flags: flags)
            guard count > 0 else { return count }
            switch meter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count])) {
            case .withinLimit:
                for rename in meter.renames {
                    buffer[rename.offset] = rename.byte
                }
                tappedSockets[fd] = .http(meter)
                return count
            case .overLimit:
                let limit = configuration.maxRequestHeadBytes
                logger.info("refusing request: head over the limit", metadata: ["limit": String(limit)])
                refuse(fd, status: 431, reason: "request headers exceed \(limit) bytes")
                errno = EAGAIN
                return -1
            case .refused(let status, let reason):
                logger.info("refusing request: body framing", metadata: ["status": String(status), "reason": reason])
                refuse(fd, status: status, reason: reason)
                errno = EAGAIN
                return -1
            }
        case .refused:
            let count = ReceiveTap.originalReceive(fd, into: buffer, flags: flags)
            guard count > 0 else { return count }
            errno = EAGAIN
            return -1
        case .webSocket(let connection):
            guard buffer.count > FrameFilter.reserve else {
                // lws 4.1.6 always reads at least 4096 bytes; a smaller read cannot be
                // checked without losing bytes, so the connection is no longer checked.
                logger.warning("receive buffer too small for the frame checks; connection not checked", metadata: [
                    "session": connection.id.description, "bytes": String(buffer.count),
                ])
                tappedSockets[fd] = nil
                return ReceiveTap.originalReceive(fd, into: buffer, flags: flags)
            }
            var readError: Int32 = 0
            let failedBefore = connection.frames.failure != nil
            let result = connection.frames.receive(into: buffer, closeSent: connection.sentClose != nil) { target in
                let count = ReceiveTap.originalReceive(fd, into: target, flags: flags)
                if count < 0 { readError = errno }
                return count
            }
            if case .count = result { heard(connection) }
            if !connection.frames.pongs.isEmpty {
                requestWritable(connection)
            }
            if !failedBefore, let failure = connection.frames.failure {
                logger.debug(
                    "failing connection: \(failure.reason)",
                    metadata: ["session": connection.id.description, "code": failure.code.description]
                )
                requestWritable(connection)
            }
            switch result {
            case .count(let count):
                return count
            case .endOfStream:
                return 0
            case .wouldBlock:
                errno = EAGAIN
                return -1
            case .readFailed:
                errno = readError
                return -1
            }
        }
    }

    /// Writes the pongs the frame filter owes (it answers pings itself) and the keepalive's
    /// ping; returns what the writable callback must return when it cannot go on (the
    /// socket is full, or a write failed), nil otherwise.
    func writeControlFrames(_ connection: Connection) -> Int32? {
        guard connection.closeToSend == nil else { return nil }
        var wrote = connection.pingOwed
        guard writePing(connection) else { return -1 }
        for payload in connection.frames.takePongs() {
            wrote = true
            let pong = OutboundMessage(payload, headroom: LWSHeadroom.bytes)
            if LWS.writePong(connection.wsi, pong.payloadPointer, pong.count) < 0 {
                return -1
            }
        }
        if wrote, LWS.sendPipeChoked(connection.wsi) {
            requestWritable(connection)
            return 0
        }
        return nil
    }

    /// Answers `status` on the socket itself (lws has written nothing for this request)
    /// and ends the sending side; the connection closes once the client closes its side,
    /// or when lws' header timeout passes. What the client still sends is dropped.
    private func refuse(_ fd: Int32, status: Int, reason: String) {
        tappedSockets[fd] = .refused
        let body = reason + "\n"
        let response = "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))\r\n"
            + "server: \(configuration.serverName)\r\n"
            + "content-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(body.utf8.count)\r\n"
            + "connection: close\r\n\r\n" + body
        let bytes = Array(response.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The client's close frame reached lws (before lws echoes it): records it. lws
    /// rewrites the registered codes 1012–1014 to 1002 before this point; the code the
    /// gate read is put back, so that the echo carries it.
    func peerInitiatedClose(_ connection: Connection, payload: UnsafeMutableRawBufferPointer) {
        if let code = connection.frames.gate.peerCloseCode, payload.count >= 2 {
            payload[0] = UInt8(code >> 8)
            payload[1] = UInt8(code & 0xFF)
        }
        connection.peerClose = Self.parseClosePayload(UnsafeRawBufferPointer(payload))
    }
}
