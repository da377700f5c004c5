import ReactorHubProtocol
import ReactorHubLibWebSockets
import Foundation
import ReactorHubLogging

/// The sockets themselves (service thread): the per-address and descriptor caps at
/// accept, the cap on upgrades per second, and what is refused, logged once a second.
extension ServerCore {
    static func key(of wsi: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(wsi))) }

    /// `LWS_CALLBACK_FILTER_NETWORK_CONNECTION`: a socket was just accepted; non-zero
    /// closes it before libwebsockets reads a byte.
    func filterAccepted(_ arguments: UnsafeMutableRawPointer?) -> Int32 {
        guard let arguments else { return 0 }
        let address = Self.address(of: &LWS.filterClientAddress(arguments).assumingMemoryBound(to: sockaddr_storage.self).pointee)
        let verdict = sockets.admit(address)
        switch verdict {
        case .keep, .healthCheckOnly:
            // Every socket of a TLS port starts a handshake: counted here, before it costs any.
            if configuration.tls != nil, !handshakes.take(address) {
                noteRefusal("over limits.tlsHandshakesPerSecond from \(address)")
                return 1
            }
            pendingAddress = address
            pendingHealthCheck = verdict == .healthCheckOnly
            if pendingHealthCheck { noteRefusal("out of descriptors: a socket lent for /healthz only") }
            return 0
        case .tooManyFromAddress:
            noteRefusal("over limits.maxConnectionsPerAddress from \(address)")
            return 1
        case .outOfDescriptors:
            noteRefusal("out of descriptors (the reserve is kept)")
            return 1
        }
    }

    /// `LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED`: the accepted socket became a wsi. A
    /// socket lent for a health check has a second to send it (a timer of its own: lws
    /// sets its header timeout, 10 s, after this callback).
    func socketOpened(_ wsi: OpaquePointer) {
        sockets.opened(Self.key(of: wsi), address: pendingAddress ?? peerAddress(wsi), healthCheckOnly: pendingHealthCheck)
        if pendingHealthCheck {
            LWS.setTimer(wsi, microseconds: 1_000_000)
        }
        pendingAddress = nil
        pendingHealthCheck = false
    }

    /// `LWS_CALLBACK_TIMER`: a socket lent for a health check that has not been answered
    /// within its second is closed (non-zero).
    func socketTimer(_ wsi: OpaquePointer) -> Int32 {
        sockets.isHealthCheckOnly(Self.key(of: wsi)) ? -1 : 0
    }

    /// `LWS_CALLBACK_WSI_DESTROY`.
    func socketClosed(_ wsi: OpaquePointer) {
        sockets.closed(Self.key(of: wsi))
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
            logger.warning("refusing sockets", metadata: ["reason": reason, "count": String(count), "open": String(sockets.open)])
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
