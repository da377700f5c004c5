import ReactorHubLocking
import Synchronization

/// What the service threads of one server share (`server.threads`): the counts and caps
/// that hold for the server as a whole, whichever thread a connection lives on. Each
/// service thread has its own lws context, connections and inbox (`ServerCore`); the first
/// one listens and hands accepted sockets to the others.
final class ServerShared: Sendable {
    /// Open WebSocket connections and event streams, on every thread (`maxConnections`).
    let connectionCount = Atomic<Int>(0)
    /// New connections are refused (stopping, shutting down).
    let refusingConnections = Atomic<Bool>(false)
    /// Upgrades refused for their Origin (metrics).
    let originsRejected = Atomic<Int>(0)
    /// Opens when no connection is left once the server refuses new ones (shutdown).
    let allClosed = Latch()
    /// Accepted sockets by peer address, against the per-address and descriptor caps.
    let sockets: Locked<SocketGuard>
    /// The cap on new upgrades (and event streams) per second.
    let upgrades: Locked<RateGate>
    /// The cap on TLS handshakes per second per peer address (with `tls`).
    let handshakes: Locked<AddressRateGates>

    init(configuration: TransportConfiguration) {
        sockets = Locked(
            SocketGuard(
                perAddress: configuration.maxConnectionsPerAddress,
                descriptorLimit: ResourceLimits.openFileLimit,
                reserve: configuration.descriptorReserve
            )
        )
        upgrades = Locked(RateGate(perSecond: configuration.upgradesPerSecond))
        handshakes = Locked(AddressRateGates(perSecond: configuration.tlsHandshakesPerSecond, burst: configuration.tlsHandshakeBurst))
    }

    /// A connection ended on some thread: counted out at once (before the handler hears of
    /// it, so that a handler's listener sees the count without it); `closed` then opens
    /// `allClosed` when it was the last one and the server refuses new ones.
    func connectionEnded(_ closed: () -> Void) {
        let remaining = connectionCount.subtract(1, ordering: .relaxed).newValue
        closed()
        if remaining == 0 && refusingConnections.load(ordering: .relaxed) {
            allClosed.open()
        }
    }
}
