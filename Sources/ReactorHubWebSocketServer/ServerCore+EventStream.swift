import ReactorHubProtocol
import ReactorHubLibWebSockets
import ReactorHubLogging
#if canImport(Glibc)
import Glibc
#endif

/// Event streams (API.md "The event stream") on the service thread: an HTTP response the
/// handler answered with `HTTPResponse.stream` stays open as one more connection of the
/// layer above. Its messages are pulled like a WebSocket's (`nextOutput`, the same
/// slow-reader policy) and written as events; a comment keeps it open when it is quiet.
extension ServerCore {
    /// Writes the stream's head and opens it as a connection, or answers 503 when no more
    /// connections are taken (`limits.maxConnections`, the upgrade rate, shutting down).
    func openStream(_ wsi: OpaquePointer, _ exchange: Exchange, _ opening: EventStreamOpening) -> Int32 {
        let full = shared.refusingConnections.load(ordering: .relaxed) || shared.connectionCount.load(ordering: .relaxed) >= configuration.maxConnections
        if full || !shared.upgrades.withLock({ $0.take() }) {
            noteRefusal(full ? "event stream over limits.maxConnections" : "event stream over limits.upgradesPerSecond")
            var refusal = HTTPResponse.json(503, opening.refusalBody)
            refusal.headers = [HTTPField("Retry-After", "1")] + (exchange.response?.headers ?? [])
            return respondAndComplete(wsi, refusal)
        }
        guard let head = exchange.response, respond(wsi, head, headers: [HTTPHeader(name: "x-accel-buffering:", value: "no")]) else {
            return -1
        }
        // No lws timeout applies to a stream, and its header table goes back to lws' pool (a
        // stream would hold it for its life, and the pool is sized for requests; the headers
        // were copied).
        LWS.markEventStream(wsi)
        LWS.detachHeaders(wsi)
        let stream = EventStream(id: nextConnectionID(), wsi: wsi, fd: LWS.socketFD(wsi))
        streams[stream.id] = stream
        streamByWSI[Self.key(of: wsi)] = stream.id
        shared.connectionCount.add(1, ordering: .relaxed)
        let request = exchange.request
        handler.connectionOpened(ConnectionInfo(
            id: stream.id, path: request.path, origin: request.headers["origin"], subprotocol: nil, peerAddress: request.peerAddress,
            query: request.query, authorization: request.authorization, stream: opening
        ))
        return 0
    }

    /// The stream can take more: pulls messages and writes them as events, several to a
    /// write, until nothing waits or the socket is full; then the keepalive comment owed,
    /// then the close decided on.
    func streamWritable(_ stream: EventStream) -> Int32 {
        stream.writableRequested = false
        if let close = stream.pendingClose, !close.afterFlush { return -1 }
        var ended = false
        streamBuffer.removeAll(keepingCapacity: true)
        while !ended, let message = handler.nextOutput(for: stream.id) {
            ended = stream.framing.append(message, to: &streamBuffer) == .last
            if streamBuffer.count >= frameBatch.capacity {
                guard writeStreamBuffer(stream) else { return -1 }
                if LWS.sendPipeChoked(stream.wsi) {
                    requestWritable(stream)
                    handler.connectionChoked(stream.id)
                    return 0
                }
            }
        }
        if stream.keepaliveOwed && streamBuffer.isEmpty {
            streamBuffer = EventStreamFraming.comment("keepalive")
        }
        stream.keepaliveOwed = false
        guard writeStreamBuffer(stream) else { return -1 }
        if ended {
            stream.pendingClose = stream.pendingClose ?? .init(code: .policyViolation, reason: "the stream's join was refused", afterFlush: true)
        }
        guard stream.pendingClose != nil else {
            // The socket filled up on the last write (lws keeps the rest): what comes next
            // waits in the outbox, told the socket is full, where the slow-reader policy
            // sees it (as for a WebSocket). Untold, a reader that stopped reading after a
            // resync had every later patch queued without bound and then sent one by one,
            // never shed and never given the snapshot it was owed.
            if LWS.partialBuffered(stream.wsi) {
                requestWritable(stream)
                handler.connectionChoked(stream.id)
            }
            return 0
        }
        if LWS.sendPipeChoked(stream.wsi) {
            requestWritable(stream)
            return 0
        }
        return -1
    }

    private func writeStreamBuffer(_ stream: EventStream) -> Bool {
        guard !streamBuffer.isEmpty else { return true }
        defer { streamBuffer.removeAll(keepingCapacity: true) }
        stream.lastWritten = Keepalive.now()
        let written = streamBuffer.withUnsafeMutableBufferPointer { LWS.writeHTTP(stream.wsi, $0.baseAddress, $0.count) }
        if written < 0 {
            logger.debug("write failed; closing", metadata: ["session": stream.id.description])
            return false
        }
        return true
    }

    func requestWritable(_ stream: EventStream) {
        guard !stream.writableRequested else { return }
        stream.writableRequested = true
        LWS.callbackOnWritable(stream.wsi)
    }

    /// Ends `stream`: after what waits when `afterFlush`, else at once (a reader that does
    /// not read would never give the writable callback a chance).
    func scheduleClose(_ stream: EventStream, code: CloseCode, reason: String, afterFlush: Bool) {
        if let existing = stream.pendingClose, !existing.afterFlush { return }
        stream.pendingClose = .init(code: code, reason: reason, afterFlush: afterFlush)
        if afterFlush {
            requestWritable(stream)
        } else {
            LWS.killAsync(stream.wsi)
        }
    }

    /// The stream's connection is gone: release it and tell the handler (with the close the
    /// server decided on, or 1006 when the client went away).
    func streamClosed(_ wsi: OpaquePointer) {
        guard let id = streamByWSI.removeValue(forKey: Self.key(of: wsi)), let stream = streams.removeValue(forKey: id) else { return }
        let close = stream.pendingClose
        shared.connectionEnded {
            handler.connectionClosed(id, code: close?.code ?? .abnormal, reason: close?.reason ?? "the client went away")
        }
    }

    /// Owes a keepalive comment to each stream silent for `streamKeepaliveMilliseconds`, and
    /// ends the streams whose client has gone: lws does not read an HTTP connection while
    /// its response is being written, so a client's close is looked for here, for all
    /// streams in one `poll` (else only a failed write would tell).
    func sweepStreams(now: Int64) {
        guard !streams.isEmpty else { return }
        var polled = streams.values.map { pollfd(fd: $0.fd, events: Self.readHangUp, revents: 0) }
        let hangUp = Self.readHangUp | Int16(POLLHUP) | Int16(POLLERR)
        let gone: Set<Int32> = poll(&polled, nfds_t(polled.count), 0) > 0 ? Set(polled.filter { $0.revents & hangUp != 0 }.map(\.fd)) : []
        for stream in streams.values where stream.pendingClose == nil {
            if gone.contains(stream.fd) {
                stream.pendingClose = .init(code: .abnormal, reason: "the client went away", afterFlush: false)
                LWS.killAsync(stream.wsi)
            } else if now - stream.lastWritten >= streamKeepaliveMilliseconds {
                stream.keepaliveOwed = true
                requestWritable(stream)
            }
        }
    }

    /// Linux's `POLLRDHUP` (the peer shut its side down), which Glibc's module leaves out.
    static let readHangUp: Int16 = 0x2000

    /// A comment at least every 15 s (API.md), sooner when pings are (`keepalive.pingSeconds`).
    var streamKeepaliveMilliseconds: Int64 {
        Int64(min(15, configuration.pingIntervalSeconds)) * 1000
    }
}
