package import ReactorHubStore
public import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubMetrics
import ReactorHubLocking
import Synchronization
package import ReactorHubLogging

/// Serves protocol v1 (PROTOCOL.md): sessions join shared reactor instances, send
/// actions, and receive snapshots, patches and pulses.
///
/// The hub is its transport's `TransportHandler`: messages arrive on the transport's
/// service thread, where the hub parses and routes them without blocking (short locks).
/// Instances load off that thread (`Hub+Loading`), each instance's reactor runs on its
/// own serial context, and everything sent to a connection goes through `Delivery`.
public final class Hub: TransportHandler, Sendable {
    struct State {
        var sessions: [ConnectionID: Session] = [:]
        var slots: [ReactorAddress: InstanceSlot] = [:]
        var slotsByStream: [StreamID: InstanceSlot] = [:]
        /// Sessions that joined each address (the hub's own count, kept under its lock).
        var joinedCount: [ReactorAddress: Int] = [:]
        /// Addresses no session has joined since then: candidates for eviction.
        var idleSince: [ReactorAddress: ContinuousClock.Instant] = [:]
        /// Instances held, by whom created them (`Session.quotaKey`).
        var created: [String: Int] = [:]
        var nextStream: UInt64 = 0
        var draining = false
        /// The HTTP API's action budgets, by user (or peer address when anonymous).
        var apiBuckets: [String: TokenBucket] = [:]
        /// HTTP requests waiting for an action's reply, numbered.
        var nextCaller: UInt64 = 0
    }

    /// The configuration the hub was created with.
    public let configuration: HubConfiguration
    let registry: ReactorRegistry
    let store: any StateStore
    let transport: any MessageTransport
    let delivery: Delivery
    /// How every message is written (the codec seam): JSON frames with the transport's headroom.
    let codec: any MessageCodec
    /// Backpressure on the way in.
    let load: ActionLoad
    let logger: Logger
    let state = Locked(State())
    let helloReactors: [UInt8]
    let shutdownRequested = Latch()
    /// Tokens verified at the upgrade, by their text (`verifyAtUpgrade`).
    let verifiedAtUpgrade = Locked(VerifiedTokenCache())
    /// What the hub counts (`GET /metrics`).
    public let metrics: HubMetrics
    let readinessChecks = Locked<[@Sendable () -> String?]>([])
    let metricsSources = Locked<[@Sendable (inout Exposition) -> Void]>([])
    /// Each connection's auth timeout or token expiry, forgotten when it closes.
    let identityDeadlines = IdentityDeadlines()
    /// Resident memory is past 90 % of `limits.maxMemoryBytes` (sampled by `OutboundBudget`).
    let memoryPressure = Atomic<Bool>(false)
    /// The cluster this hub is a node of; nil: instances live in this process alone.
    let cluster: (any InstanceHost)?

    /// Creates a hub serving the kinds of `registry` over `transport`, keeping instance
    /// state in `store`; nothing is served until `start()`.
    package init(
        configuration: HubConfiguration,
        registry: ReactorRegistry,
        store: any StateStore = MemoryStateStore(),
        transport: any MessageTransport,
        cluster: (any InstanceHost)? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        self.cluster = cluster
        self.registry = registry
        self.store = store
        self.transport = transport
        self.logger = logger
        let metrics = HubMetrics(kinds: registry.names)
        self.metrics = metrics
        self.codec = JSONCodec(headroom: transport.frameHeadroom)
        self.delivery = Delivery(
            transport: transport, limits: DeliveryLimits(outboundQueueBytes: configuration.outboundQueueBytes),
            metrics: metrics, logger: logger
        )
        self.load = ActionLoad(perInstance: configuration.maxPendingActions, total: configuration.maxPendingActionsTotal, transport: transport)
        var writer = JSONWriter()
        writer.writeValue(registry.helloDescription)
        self.helloReactors = writer.bytes
        cluster?.attach(delivery, codec: codec)
        identityDeadlines.activate { [weak self] due in self?.identityDeadlinesPassed(due) }
    }

    /// Starts the transport; returns its bound port.
    @discardableResult
    public func start() throws(TransportError) -> Int {
        try transport.start(handler: self)
    }

    /// Open connections.
    public var connectionCount: Int {
        state.withLock { $0.sessions.count }
    }

    /// Payload bytes waiting for `id`, or nil if it is not open.
    public func queuedBytes(of id: ConnectionID) -> Int? {
        delivery.output(of: id)?.queuedBytes
    }

    /// Writes that carried several merged patches, over the open connections (diagnostics).
    public var mergedWrites: Int { delivery.written.mergedWrites }

    // MARK: TransportHandler (service thread)

    /// Opens a session and sends `hello` (an event stream: joins its reactor instead).
    public func connectionOpened(_ connection: ConnectionInfo) {
        let bucket = TokenBucket(
            ratePerSecond: configuration.actionsPerSecond, burst: configuration.actionBurst, now: .now
        )
        let output = delivery.open(connection.id)
        let identity = identity(of: connection)
        metrics.connectionsOpened.increment()
        let joinBucket = TokenBucket(ratePerSecond: configuration.joinsPerSecond, burst: configuration.joinBurst, now: .now)
        let sessionName = cluster?.session(connection.id) ?? connection.id.description
        state.withLock {
            $0.sessions[connection.id] = Session(
                output: output, bucket: bucket, joinBucket: joinBucket, identity: identity, path: connection.path,
                peerAddress: connection.peerAddress, isStream: connection.stream != nil,
                senderSession: sessionName
            )
        }
        logger.info(
            "connection opened",
            metadata: [
                "session": connection.id.description,
                "peer": connection.peerAddress,
                "origin": connection.origin ?? "-",
                "subprotocol": connection.subprotocol ?? "-",
                "user": identity.user ?? "-",
            ]
        )
        if let stream = connection.stream {
            armTimers(for: connection.id, identity: identity)
            return streamOpened(connection, stream)
        }
        let hello = codec.hello(
            server: configuration.serverName, session: sessionName, identity: identity.hello,
            node: nodeName, reactors: helloReactors
        )
        delivery.send(.reply(hello), to: output)
        armTimers(for: connection.id, identity: identity)
    }

    /// Parses and routes one client message.
    public func connection(_ id: ConnectionID, received message: [UInt8]) {
        let receivedAt = ContinuousClock.now
        switch ClientMessageParser.parse(message) {
        case .failure(let failure):
            refuse(id, failure.error, ref: failure.ref)
        case .success(let request):
            handle(request, from: id, receivedAt: receivedAt)
        }
    }

    /// Ends the session and leaves every reactor it joined.
    public func connectionClosed(_ id: ConnectionID, code: CloseCode, reason: String) {
        let session = state.withLock { state -> Session? in
            guard let session = state.sessions.removeValue(forKey: id) else { return nil }
            for address in session.joined.keys {
                state.forget(address)
            }
            return session
        }
        if let session {
            for slot in session.joined.values {
                leave(slot, output: session.output, ref: nil, reply: false)
            }
        }
        delivery.closed(id)
        load.forget(id)
        metrics.connectionsClosed.increment(String(code.rawValue))
        identityDeadlines.cancel(id)
        logger.info(
            "connection closed",
            metadata: [
                "session": id.description, "code": code.description, "reason": reason,
                "joined": String(session?.joined.count ?? 0),
            ]
        )
    }

    public func nextOutput(for id: ConnectionID) -> OutboundMessage? {
        takeOutput(for: id)?.message
    }

    public func takeOutput(for id: ConnectionID) -> (message: OutboundMessage, isLast: Bool)? {
        let pulled = delivery.pull(for: id)
        if !pulled.resync.isEmpty {
            // The snapshots queue behind what was taken; pulling goes on to them.
            resynchronize(id, streams: pulled.resync)
            return pulled.message.map { ($0, false) }
        }
        return pulled.message.map { ($0, pulled.isLast) }
    }

    public func connectionChoked(_ id: ConnectionID) {
        delivery.choked(id)
    }
}
