import ReactorHubLibWebSockets
import ReactorHubProtocol
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The keepalive's rule (`pingIntervalSeconds`, `pingTimeoutSeconds`): a connection silent
/// for the first is pinged once, one silent for the second is dropped. Anything heard from
/// the peer ends the silence: any byte read through the receive tap (a frame, a ping, an
/// empty pong), else, over TLS, a piece of a message or a pong lws reports.
///
/// It replaces lws' validity timers, which keep one timer per connection in a sorted list:
/// each insertion (at the upgrade, at every ping and every pong) walks that list, so with
/// 18,000 connections idle ones alone kept a third of a core busy (BENCHMARKS.md, "Idle
/// connections at 18,000"). Here one sweep a second looks at every connection once.
struct Keepalive {
    /// What a connection is owed at a sweep.
    enum Step: Equatable {
        case nothing
        case ping
        case drop
    }

    /// Silence, in milliseconds, before the ping and before the drop.
    let pingAfter: Int64
    let dropAfter: Int64

    init(pingSeconds: Int, timeoutSeconds: Int) {
        pingAfter = Int64(pingSeconds) * 1000
        dropAfter = Int64(timeoutSeconds) * 1000
    }

    func step(silence: Int64, pinged: Bool) -> Step {
        if silence >= dropAfter { return .drop }
        if silence >= pingAfter && !pinged { return .ping }
        return .nothing
    }

    /// A monotonic clock in milliseconds, cheap enough for every read (the coarse clock is
    /// read from the vDSO, a few milliseconds of resolution).
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}

extension ServerCore {
    /// The peer was heard (service thread).
    func heard(_ connection: Connection) {
        connection.lastHeard = Keepalive.now()
        connection.pinged = false
    }

    /// Starts the sweep: once a second, on the service thread (through the inbox).
    func startKeepaliveTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: keepaliveQueue)
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            self?.post(.keepaliveSweep)
        }
        timer.resume()
        return timer
    }

    /// Pings the connections silent for `pingIntervalSeconds` and drops those silent for
    /// `pingTimeoutSeconds` (service thread). Connections already closing are left to their
    /// own close timeout.
    func sweepKeepalive() {
        let now = Keepalive.now()
        sweepStreams(now: now)
        for connection in connections.values
        where connection.pendingClose == nil && connection.sentClose == nil && connection.droppedFor == nil {
            switch keepalive.step(silence: now - connection.lastHeard, pinged: connection.pinged) {
            case .nothing:
                break
            case .ping:
                connection.pinged = true
                connection.pingOwed = true
                requestWritable(connection)
            case .drop:
                // Bytes waiting in the socket are not silence: the service thread was late
                // to read them (a loaded machine), not the peer to send them.
                guard !hasUnreadInput(connection.fd) else { break }
                connection.droppedFor = "no answer to pings for \(configuration.pingTimeoutSeconds) s"
                logger.debug("dropping a silent connection", metadata: [
                    "session": connection.id.description, "seconds": String(configuration.pingTimeoutSeconds),
                ])
                // Killed at the next service pass, without a close frame (the peer is gone).
                LWS.killAsync(connection.wsi)
            }
        }
    }

    /// Whether the socket holds bytes not read yet.
    private func hasUnreadInput(_ fd: Int32) -> Bool {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 && count > 0
    }

    /// Writes the ping owed, if any; false when the write failed. It carries a payload: lws
    /// 4.1.6 hands an empty pong to no callback, so over TLS (where the receive tap does not
    /// see the bytes) the answer would not count as heard.
    func writePing(_ connection: Connection) -> Bool {
        guard connection.pingOwed else { return true }
        connection.pingOwed = false
        let ping = OutboundMessage(Self.pingPayload, headroom: LWSHeadroom.bytes)
        return LWS.writePing(connection.wsi, ping.payloadPointer, ping.count) >= 0
    }

    static let pingPayload = Array("reactorhub".utf8)
}
