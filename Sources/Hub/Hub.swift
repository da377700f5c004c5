import JSON
public import Logging
import Synchronization
public import Transport

/// Serves protocol v1 (PROTOCOL.md): sessions join shared reactor instances, send
/// actions, and receive snapshots, patches and pulses.
///
/// Inbound messages arrive on the transport's service thread; the hub parses and routes
/// them there without blocking (a short lock), and each instance's reactor runs on its
/// own serial context, from which acks, patches and pulses are posted to the transport.
public final class Hub: WebSocketServerDelegate, Sendable {
    struct State {
        var sessions: [ConnectionID: Session] = [:]
        var instances: [ReactorAddress: any HubInstance] = [:]
        var instancesByStream: [StreamID: any HubInstance] = [:]
        var idleSince: [ReactorAddress: ContinuousClock.Instant] = [:]
        var nextStream: UInt64 = 0
        var draining = false
    }

    /// The configuration the hub was created with.
    public let configuration: HubConfiguration
    let registry: ReactorRegistry
    let store: any StateStore
    private let server: WebSocketServer
    let channel: any OutboundChannel
    let logger: Logger
    let state = Mutex(State())
    private let helloReactors: [UInt8]
    let eviction = Mutex<Task<Void, Never>?>(nil)

    /// Creates a hub serving the kinds of `registry`, keeping instance state in `store`;
    /// nothing listens until `start()`.
    public init(
        configuration: HubConfiguration,
        registry: ReactorRegistry,
        store: any StateStore = MemoryStateStore(),
        logger: Logger = Logger(label: "hub")
    ) {
        self.configuration = configuration
        self.registry = registry
        self.store = store
        self.logger = logger
        self.server = WebSocketServer(configuration: configuration.transport, logger: Logger(label: "transport"))
        self.channel = server
        var writer = JSONWriter()
        writer.writeValue(registry.helloDescription)
        self.helloReactors = writer.bytes
    }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws(TransportError) -> Int {
        let port = try server.start(delegate: self, merger: PatchMerger())
        startEviction()
        return port
    }

    /// The bound port, once started.
    public var port: Int? { server.port }

    /// Writes that carried several merged patches since the start (diagnostics).
    public var mergedWrites: Int { server.mergedWrites }

    /// Open connections.
    public var connectionCount: Int { server.connectionCount }

    /// Shuts down as CONFIG.md describes: stop accepting, let running effects finish (at
    /// most `grace`), answer new actions with `overloaded`, persist, deliver what is
    /// queued, close every client with 1001.
    public func shutdown(grace: Duration) async {
        let instances = state.withLock { state -> [any HubInstance] in
            state.draining = true
            return Array(state.instances.values)
        }
        server.stopAccepting()
        eviction.withLock { task in
            task?.cancel()
            task = nil
        }
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        let settled = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { idle in
                    for instance in instances {
                        idle.addTask { await instance.waitUntilIdle() }
                    }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: clock)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !settled {
            logger.warning("shutdown grace elapsed with effects still running")
        }
        await store.flush()
        let remaining = max(deadline - clock.now, .seconds(1))
        await server.shutdown(code: .goingAway, reason: "server shutting down", grace: remaining)
        logger.info("hub stopped")
    }

    // MARK: WebSocketServerDelegate (service thread)

    /// Opens a session and sends `hello`.
    public func connectionOpened(_ connection: ConnectionInfo) {
        let bucket = TokenBucket(
            ratePerSecond: configuration.actionsPerSecond, burst: configuration.actionBurst, now: .now
        )
        state.withLock { $0.sessions[connection.id] = Session(id: connection.id, bucket: bucket) }
        logger.info(
            "connection opened",
            metadata: [
                "session": connection.id.description,
                "peer": connection.peerAddress,
                "origin": connection.origin ?? "-",
                "subprotocol": connection.subprotocol ?? "-",
            ]
        )
        channel.send(
            ServerMessage.hello(server: configuration.serverName, session: connection.id.description, reactors: helloReactors),
            to: connection.id
        )
    }

    /// Parses and routes one client message.
    public func connection(_ id: ConnectionID, received message: [UInt8]) {
        switch ClientMessageParser.parse(message) {
        case .failure(let failure):
            refuse(id, failure.error, ref: failure.ref)
        case .success(let request):
            handle(request, from: id)
        }
    }

    /// Ends the session and leaves every reactor it joined.
    public func connectionClosed(_ id: ConnectionID, code: CloseCode, reason: String) {
        let now = ContinuousClock.now
        let session = state.withLock { state -> Session? in
            guard let session = state.sessions.removeValue(forKey: id) else { return nil }
            for instance in session.joined.values where instance.leave(id) && instance.subscriberCount == 0 {
                state.idleSince[instance.address] = now
            }
            return session
        }
        logger.info(
            "connection closed",
            metadata: [
                "session": id.description, "code": code.description, "reason": reason,
                "joined": String(session?.joined.count ?? 0),
            ]
        )
    }

    /// Sends fresh snapshots to a connection that caught up after its updates were dropped.
    public func connection(_ id: ConnectionID, needsResyncOf streams: [StreamID]) {
        let instances = state.withLock { state in
            streams.compactMap { state.instancesByStream[$0] }
        }
        for instance in instances {
            logger.debug("resync after lag", metadata: ["session": id.description, "reactor": instance.address.description])
            instance.resync(id)
        }
    }
}
