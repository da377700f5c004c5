import ReactorHubProtocol
import ReactorHubLibWebSockets
import Foundation
import ReactorHubLogging

/// The sockets themselves (service thread): the per-address and descriptor caps at
/// accept, the cap on upgrades per second, and what is refused, logged once a second.
extension ServerCore {
    static func key(of wsi: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(wsi))) }

    /// `LWS_CALLBACK_FILTER_NETWORK_CONNECTION`: the socket `fd` was just accepted (on the
    /// listening thread); non-zero closes it before libwebsockets reads a byte. A socket
    /// another service thread is to serve leaves as a copy of its descriptor (`handOff`),
    /// and lws closes its own.
    func filterAccepted(_ arguments: UnsafeMutableRawPointer?, fd: Int32) -> FilterVerdict {
        guard let arguments else { return .serveHere }
        // A socket counted at its filter whose wsi never came (lws could not take it).
        releasePendingReservation()
        let address = Self.address(of: &LWS.filterClientAddress(arguments).assumingMemoryBound(to: sockaddr_storage.self).pointee)
        let verdict = shared.sockets.withLock { $0.take(address) }
        switch verdict {
        case .keep, .healthCheckOnly:
            // Every socket of a TLS port starts a handshake: counted here, before it costs any.
            if configuration.tls != nil, !shared.handshakes.withLock({ $0.take(address) }) {
                if verdict == .keep { shared.sockets.withLock { $0.cancel(address) } }
                noteRefusal("over limits.tlsHandshakesPerSecond from \(address)")
                return .refuse
            }
            if verdict == .keep, let target = handOffTarget() {
                let copy = dup(fd)
                guard copy >= 0 else {
                    shared.sockets.withLock { $0.cancel(address) }
                    noteRefusal("accept failed (out of descriptors)")
                    return .refuse
                }
                target.sockets.add(1, ordering: .relaxed)
                target.post(.adopt(copy, address))
                return .handedOff
            }
            sockets.add(1, ordering: .relaxed)
            pendingAddress = address
            pendingHealthCheck = verdict == .healthCheckOnly
            pendingReserved = verdict == .keep
            if pendingHealthCheck { noteRefusal("out of descriptors: a socket lent for /healthz only") }
            return .serveHere
        case .tooManyFromAddress:
            noteRefusal("over limits.maxConnectionsPerAddress from \(address)")
            return .refuse
        case .outOfDescriptors:
            noteRefusal("out of descriptors (the reserve is kept)")
            return .refuse
        }
    }

    /// What becomes of a socket just accepted.
    enum FilterVerdict {
        /// Served by this thread.
        case serveHere
        /// Closed at once (a cap).
        case refuse
        /// Served by another service thread, which got a copy of its descriptor.
        case handedOff
    }

    /// The service thread with the fewest sockets, when it is not this one (ties: in turn).
    private func handOffTarget() -> ServerCore? {
        guard !peers.isEmpty else { return nil }
        var best = self
        var fewest = sockets.load(ordering: .relaxed)
        for step in 0..<peers.count {
            let peer = peers[(nextPeer + step) % peers.count]
            let count = peer.sockets.load(ordering: .relaxed)
            if count < fewest {
                best = peer
                fewest = count
            }
        }
        nextPeer = (nextPeer + 1) % peers.count
        return best === self ? nil : best
    }

    /// A socket the listening thread handed over (`.adopt`): served here as if accepted here.
    func adopt(_ fd: Int32, from address: String) {
        guard let context, running.load(ordering: .relaxed) else {
            close(fd)
            sockets.subtract(1, ordering: .relaxed)
            shared.sockets.withLock { $0.cancel(address) }
            return
        }
        releasePendingReservation()
        socketAccepted(fd)
        pendingAddress = address
        pendingHealthCheck = false
        pendingReserved = true
        if LWS.adoptSocket(context, fd) == nil {
            logger.debug("a socket handed over could not be served", metadata: ["peer": address])
        }
        // `socketOpened` took the reservation over if the wsi came to be.
        if pendingAddress != nil {
            socketClosing(fd)
        }
        releasePendingReservation()
    }

    /// Gives back the counts made for a socket whose wsi never came (`SocketGuard.take`'s
    /// and this thread's).
    func releasePendingReservation() {
        if let address = pendingAddress {
            sockets.subtract(1, ordering: .relaxed)
            if pendingReserved { shared.sockets.withLock { $0.cancel(address) } }
        }
        pendingAddress = nil
        pendingReserved = false
        pendingHealthCheck = false
    }

    /// `LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED`: the accepted socket became a wsi. A
    /// socket lent for a health check has a second to send it (a timer of its own: lws
    /// sets its header timeout, 10 s, after this callback).
    func socketOpened(_ wsi: OpaquePointer) {
        // A socket that passed no filter here (none is known to) is counted now.
        if pendingAddress == nil { sockets.add(1, ordering: .relaxed) }
        let address = pendingAddress ?? peerAddress(wsi)
        let healthCheck = pendingHealthCheck
        let reserved = pendingReserved
        shared.sockets.withLock { $0.opened(Self.key(of: wsi), address: address, healthCheckOnly: healthCheck, reserved: reserved) }
        if healthCheck {
            LWS.setTimer(wsi, microseconds: 1_000_000)
        }
        pendingAddress = nil
        pendingHealthCheck = false
        pendingReserved = false
    }

    /// `LWS_CALLBACK_TIMER`: a socket lent for a health check that has not been answered
    /// within its second is closed (non-zero).
    func socketTimer(_ wsi: OpaquePointer) -> Int32 {
        shared.sockets.withLock { $0.isHealthCheckOnly(Self.key(of: wsi)) } ? -1 : 0
    }

    /// `LWS_CALLBACK_WSI_DESTROY`.
    func socketClosed(_ wsi: OpaquePointer) {
        let known = shared.sockets.withLock { $0.closed(Self.key(of: wsi)) }
        if known { sockets.subtract(1, ordering: .relaxed) }
    }

    /// The answer to a request on a socket the reserve lent for a health check: nil for
    /// `GET` or `HEAD /healthz` (served, then the socket closes), else a 503.
    func healthCheckRefusal(_ wsi: OpaquePointer, path: String) -> HTTPResponse? {
        guard path != "/healthz" || !["GET", "HEAD"].contains(requestMethod(wsi) ?? "") else { return nil }
        return .text(503, "out of descriptors: only GET /healthz is served on a new connection now")
    }

    /// Counts a refusal and logs the counts at most once a second.
    func noteRefusal(_ reason: String, count: Int = 1) {
        refusedSockets[reason, default: 0] += count
        let now = ContinuousClock.now
        guard now - lastRefusalLog >= .seconds(1) else { return }
        lastRefusalLog = now
        for (reason, count) in refusedSockets.sorted(by: { $0.key < $1.key }) {
            logger.warning("refusing sockets", metadata: ["reason": reason, "count": String(count), "open": String(shared.sockets.withLock { $0.open })])
        }
        refusedSockets = [:]
    }

    /// `203.0.113.7` or `2001:db8::1` of a peer's socket address.
    static func address(of storage: inout sockaddr_storage) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(storage.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let result = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard result == 0 else { return "unknown" }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.hasPrefix("::ffff:") ? String(text.dropFirst(7)) : text
    }
}
