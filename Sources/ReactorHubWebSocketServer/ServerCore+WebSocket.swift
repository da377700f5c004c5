import ReactorHubProtocol
import ReactorHubLibWebSockets
import ReactorHubLogging

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
        let id = nextConnectionID()
        let fd = LWS.socketFD(wsi)
        let isEcho = isEchoPath(requestPath(wsi))
        let connection = Connection(
            id: id,
            wsi: wsi,
            fd: fd,
            assembler: isEcho
                ? InboundAssembler(maxMessageBytes: configuration.echoMaxMessageBytes, acceptsBinary: true)
                : InboundAssembler(maxMessageBytes: configuration.maxMessageBytes),
            echo: isEcho ? EchoQueue(pauseBytes: configuration.echoMaxMessageBytes) : nil
        )
        if let agreement = deflateNegotiation(wsi) {
            connection.inflation = InboundInflation(windowBits: agreement.clientWindowBits)
            connection.frames.acceptCompressedMessages()
        }
        session.pointee = Unmanaged.passRetained(connection).toOpaque()
        connections[id] = connection
        shared.connectionCount.add(1, ordering: .relaxed)
        if ReceiveTap.isInstalled {
            tappedSockets[fd] = .webSocket(connection)
        }
        if isEcho { return 0 }

        let offeredProtocols = header(wsi, .protocol) ?? ""
        let info = ConnectionInfo(
            id: id,
            path: header(wsi, .getURI) ?? configuration.webSocketPath,
            origin: header(wsi, .origin),
            subprotocol: offeredProtocols.isEmpty ? nil : configuration.subprotocol,
            peerAddress: peerAddress(wsi),
            query: queryArguments(wsi),
            authorization: header(wsi, .authorization)
        )
        handler.connectionOpened(info)
        return 0
    }

    /// A chunk of an inbound message arrived.
    ///
    /// A refused message is closed from the writable callback, as every close is, and
    /// nothing more is read into messages once the connection is closing: lws goes on
    /// parsing what the client sent until its close frame is out. Returning -1 here
    /// instead made lws drop the socket without the close frame, 5 times in 6 for a message
    /// one byte over `maxMessageBytes` with the 2 KiB receive buffer (lws' close path from
    /// inside its parser was not taken apart further).
    func receive(_ chunk: UnsafeRawBufferPointer, on connection: Connection) -> Int32 {
        guard connection.pendingClose == nil, connection.sentClose == nil else { return 0 }
        let isBinary = LWS.frameIsBinary(connection.wsi)
        let isFinalFrame = LWS.isFinalFragment(connection.wsi)
        let remaining = LWS.remainingPacketPayload(connection.wsi)
        let outcome: InboundAssembler.Outcome
        if connection.inflation != nil {
            outcome = connection.inflation!.receive(
                chunk, into: &connection.assembler, start: { connection.frames.takeMessageStart() },
                isBinary: isBinary, isFinalFrame: isFinalFrame, remainingInFrame: remaining, pool: inflaters
            )
        } else {
            outcome = connection.assembler.receive(chunk, isBinary: isBinary, isFinalFrame: isFinalFrame, remainingInFrame: remaining)
        }
        switch outcome {
        case .incomplete:
            return 0
        case .message(let bytes):
            if connection.echo != nil { return echo(bytes, isBinary: false, on: connection) }
            handler.connection(connection.id, received: bytes)
            return 0
        case .binaryMessage(let bytes):
            return echo(bytes, isBinary: true, on: connection)
        case .refuse(let code, let reason):
            logger.debug(
                "closing connection: \(reason)",
                metadata: ["session": connection.id.description, "code": code.description]
            )
            scheduleClose(connection, code: code, reason: reason, afterFlush: false)
            return 0
        }
    }

    /// The socket can take more: pulls and writes messages until nothing waits or the
    /// socket would block (as lws' own mirror protocol does), then asks to be called again
    /// if output still waits.
    func writable(_ connection: Connection) -> Int32 {
        connection.writableRequested = false
        if connection.writeFailed { return -1 }
        if let result = writeControlFrames(connection) { return result }
        if connection.echo != nil { return writeEchoes(connection) }
        // Small messages taken from the queue wait in `held` (one, written from its own
        // buffer) or `frameBatch` (two or more, framed together) until a larger one, the
        // end of the queue or a full batch: then one write sends them all. A message of a
        // connection that negotiated permessage-deflate goes as its wire frame.
        var held: WireFrame?
        defer { frameBatch.reset() }
        while true {
            if let close = connection.closeToSend, !close.afterFlush {
                guard flush(connection, &held) else { return -1 }
                return closeNow(connection, code: close.code, reason: close.reason)
            }
            guard let (next, isLast) = handler.takeOutput(for: connection.id) else {
                return endOfOutput(connection, &held)
            }
            let message = wireFrame(next, on: connection)
            if FrameBatch.takes(message.message) {
                if held == nil && frameBatch.messages == 0 {
                    held = message
                } else {
                    if let first = held {
                        frameBatch.append(first.message, compressed: first.compressed)
                        held = nil
                    }
                    if frameBatch.fits(message.message) {
                        frameBatch.append(message.message, compressed: message.compressed)
                    } else {
                        guard flush(connection, &held) else { return -1 }
                        if choked(connection) {
                            // Taken already: it goes too, onto lws's buflist if the socket is full.
                            guard write(connection, message) else { return -1 }
                            return 0
                        }
                        held = message
                    }
                }
            } else {
                guard flush(connection, &held), write(connection, message) else { return -1 }
                if choked(connection) { return 0 }
            }
            // The last message waiting (the handler says so): no pull to find nothing.
            if isLast { return endOfOutput(connection, &held) }
        }
    }

    /// Nothing more waits: writes what is held, then a close waiting for the flush, and
    /// tells the outbox when the socket filled up on the last write (what comes next waits
    /// there, where the slow-reader policy sees it, not in lws' buffer).
    private func endOfOutput(_ connection: Connection, _ held: inout WireFrame?) -> Int32 {
        guard flush(connection, &held) else { return -1 }
        if let close = connection.closeToSend {
            return closeNow(connection, code: close.code, reason: close.reason)
        }
        _ = choked(connection)
        return 0
    }

    /// Writes what waits for `connection` from the inbox (service thread), without asking
    /// lws for a writable callback first, when nothing stands in the way: no callback is
    /// already asked for and lws holds nothing back (the socket is not full), no close is
    /// under way, and it is not an echo. The socket is nearly always writable, and waiting
    /// for lws to say so cost a pass of its loop per message (poll(2): a scan of every
    /// descriptor) and, on libuv, two `epoll_ctl` pairs (lws turns POLLOUT on, then off).
    /// When lws keeps part of a write back, `writable` stops and asks for the callback, and
    /// the outbox is told the socket is full: what comes next waits there, under the
    /// slow-reader policy. A write that fails closes the connection from its next writable
    /// callback.
    func writeNow(_ connection: Connection) {
        guard !connection.writableRequested, !LWS.partialBuffered(connection.wsi), connection.echo == nil,
              connection.pendingClose == nil, connection.closeToSend == nil, connection.sentClose == nil,
              connection.peerClose == nil, connection.droppedFor == nil
        else {
            requestWritable(connection)
            return
        }
        if writable(connection) < 0 {
            connection.writeFailed = true
            requestWritable(connection)
        }
    }

    /// Writes what `writable` holds back: one message as it is, or the batch of several.
    private func flush(_ connection: Connection, _ held: inout WireFrame?) -> Bool {
        if let message = held {
            held = nil
            return write(connection, message)
        }
        guard frameBatch.messages > 0 else { return true }
        defer { frameBatch.reset() }
        if LWS.writeFrames(connection.wsi, frameBatch.framedPointer, frameBatch.count) < 0 {
            logger.debug("write failed; closing", metadata: ["session": connection.id.description])
            return false
        }
        return true
    }

    private func write(_ connection: Connection, _ frame: WireFrame) -> Bool {
        if frame.compressed { return writeCompressed(connection, frame.message) }
        // The header is written into the message's headroom once, for every connection on
        // every service thread: the bytes sent are then only read (`OutboundMessage.framed`).
        let message = LWSHeadroom.ensured(frame.message)
        let length = message.count
        let header = message.framed { payload in
            FrameBatch.writeHeader(payload - FrameBatch.headerSize(length), first: FrameBatch.textFrameByte(compressed: false), length: length)
        }
        if LWS.writeFrames(connection.wsi, message.payloadPointer - header, header + length) < 0 {
            logger.debug("write failed; closing", metadata: ["session": connection.id.description])
            return false
        }
        return true
    }

    /// Whether the socket is full, as the last write found it (lws kept part of it back);
    /// if so, asks to be called again. A socket that filled up exactly at the last write is
    /// found by the next one, which lws then keeps back whole: one `poll(2)` per message
    /// (`lws_send_pipe_choked`) cost more than that rare copy.
    private func choked(_ connection: Connection) -> Bool {
        guard LWS.partialBuffered(connection.wsi) else { return false }
        requestWritable(connection)
        handler.connectionChoked(connection.id)
        return true
    }

    /// Sets the close status and tells lws to close (by returning -1 from the callback; on
    /// libuv by starting the close here, `LWS.closeInCallback`, so that the close frame is
    /// sent: lws would drop the connection first).
    func closeNow(_ connection: Connection, code: CloseCode, reason: String) -> Int32 {
        let first = connection.sentClose == nil
        connection.sentClose = (code, reason)
        var bytes = Array(reason.utf8.prefix(123))
        LWS.setCloseReason(connection.wsi, code: code.rawValue, reason: &bytes, length: bytes.count)
        if first && eventLoop == .libuv {
            LWS.closeInCallback(connection.wsi)
            return 0
        }
        return -1
    }

    /// The connection is gone: release it and tell the handler.
    func closed(session: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let session, let stored = session.pointee else { return }
        session.pointee = nil
        let connection = Unmanaged<Connection>.fromOpaque(stored).takeRetainedValue()
        connections[connection.id] = nil
        connection.inflation?.release(to: inflaters)
        socketClosing(connection.fd)
        let failure = connection.frames.failure.map { (code: $0.code, reason: $0.reason) }
        let dropped = connection.droppedFor.map { (code: CloseCode.abnormal, reason: $0) }
        let (code, reason) = connection.sentClose ?? failure ?? connection.peerClose ?? dropped ?? Self.droppedClose(connection.pendingClose)
        shared.connectionEnded {
            if connection.echo == nil {
                handler.connectionClosed(connection.id, code: code, reason: reason)
            }
        }
    }

    /// The status of a connection that ended without a close frame either way: the close
    /// the server had decided on, when its frame found no room in time; else 1006.
    static func droppedClose(_ pending: Connection.PendingClose?) -> (CloseCode, String) {
        guard let pending, !pending.afterFlush else { return (.abnormal, "connection lost") }
        return (pending.code, "\(pending.reason) (dropped: no room for the close frame)")
    }

    func header(_ wsi: OpaquePointer, _ token: LWSToken) -> String? {
        let length = LWS.headerLength(wsi, token)
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        let copied = LWS.copyHeader(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return Self.text(buffer, count: copied)
    }

    /// The first `count` bytes lws copied into `buffer`, decoded as UTF-8 (one allocation,
    /// the string's). Decoded from a buffer of `UInt8`: a slice of raw bytes would take
    /// the standard library's slow, generic path.
    static func text(_ buffer: [CChar], count: Int32) -> String {
        buffer.withUnsafeBytes { raw in
            String(decoding: UnsafeRawBufferPointer(rebasing: raw.prefix(Int(count))).assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }
    }

    func peerAddress(_ wsi: OpaquePointer) -> String {
        LWS.peerAddress(wsi) ?? "unknown"
    }
}
