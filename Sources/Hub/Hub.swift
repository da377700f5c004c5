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
    private struct State {
        var sessions: [ConnectionID: Session] = [:]
        var instances: [ReactorAddress: any HubInstance] = [:]
        var instancesByStream: [StreamID: any HubInstance] = [:]
        var idleSince: [ReactorAddress: ContinuousClock.Instant] = [:]
        var nextStream: UInt64 = 0
        var draining = false
    }

    /// The configuration the hub was created with.
    public let configuration: HubConfiguration
    private let registry: ReactorRegistry
    private let store: any StateStore
    private let server: WebSocketServer
    private let channel: any OutboundChannel
    private let logger: Logger
    private let state = Mutex(State())
    private let helloReactors: [UInt8]
    private let eviction = Mutex<Task<Void, Never>?>(nil)

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
        let port = try server.start(delegate: self)
        startEviction()
        return port
    }

    /// The bound port, once started.
    public var port: Int? { server.port }

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

    public func connection(_ id: ConnectionID, received message: [UInt8]) {
        switch ClientMessageParser.parse(message) {
        case .failure(let failure):
            refuse(id, failure.error, ref: failure.ref)
        case .success(let request):
            handle(request, from: id)
        }
    }

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

    public func connection(_ id: ConnectionID, needsResyncOf streams: [StreamID]) {
        let instances = state.withLock { state in
            streams.compactMap { state.instancesByStream[$0] }
        }
        for instance in instances {
            logger.debug("resync after lag", metadata: ["session": id.description, "reactor": instance.address.description])
            instance.resync(id)
        }
    }

    // MARK: Routing

    private func handle(_ request: ClientRequest, from id: ConnectionID) {
        switch request.message {
        case .ping:
            channel.send(ServerMessage.pong(ref: request.ref), to: id)
        case .join(let address, let since):
            join(address, since: since, ref: request.ref, from: id)
        case .leave(let address):
            leave(address, ref: request.ref, from: id)
        case .action(let address, let payload):
            act(address, payload: payload, ref: request.ref, from: id)
        }
    }

    private func join(_ address: ReactorAddress, since: ClientMessage.ResumePoint?, ref: JSONValue?, from id: ConnectionID) {
        guard let kind = registry.kind(named: address.kind) else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let result = state.withLock { state -> Result<any HubInstance, ProtocolError> in
            guard var session = state.sessions[id] else {
                return .failure(ProtocolError(.internal, "this connection is closing"))
            }
            if let joined = session.joined[address] {
                return .success(joined)
            }
            guard session.joined.count < configuration.maxJoinsPerConnection else {
                return .failure(ProtocolError(
                    .tooManyJoins,
                    "this connection has joined \(session.joined.count) reactors, the limit (limits.maxJoinsPerConnection); leave one before joining \(address)"
                ))
            }
            let instance: any HubInstance
            if let existing = state.instances[address] {
                instance = existing
            } else {
                state.nextStream += 1
                let context = ReactorKind.InstanceContext(
                    stream: StreamID(rawValue: state.nextStream),
                    channel: channel,
                    historyCapacity: configuration.historyPatches,
                    store: store,
                    durableAcks: configuration.durableAcks,
                    logger: Logger(label: "reactor")
                )
                do {
                    instance = try kind.makeInstance(address, context)
                } catch {
                    logger.error("could not create instance", metadata: ["reactor": address.description, "error": "\(error)"])
                    return .failure(ProtocolError(.internal, "\(address) could not be created: \(error)"))
                }
                state.instances[address] = instance
                state.instancesByStream[instance.stream] = instance
                logger.debug("instance created", metadata: ["reactor": address.description])
            }
            session.joined[address] = instance
            state.sessions[id] = session
            state.idleSince[address] = nil
            return .success(instance)
        }
        switch result {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let instance):
            logger.debug("joined", metadata: ["session": id.description, "reactor": address.description])
            instance.join(id, ref: ref, since: since)
        }
    }

    private func leave(_ address: ReactorAddress, ref: JSONValue?, from id: ConnectionID) {
        guard registry.kind(named: address.kind) != nil else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let instance = state.withLock { state -> (any HubInstance)? in
            guard let instance = state.sessions[id]?.joined.removeValue(forKey: address) else { return nil }
            return instance
        }
        guard let instance else {
            return refuse(id, ProtocolError(.notJoined, "\(address) is not joined on this connection; nothing to leave"), ref: ref)
        }
        instance.leave(id)
        if instance.subscriberCount == 0 {
            state.withLock { $0.idleSince[address] = .now }
        }
        logger.debug("left", metadata: ["session": id.description, "reactor": address.description])
        channel.send(ServerMessage.left(address.description, ref: ref), to: id)
    }

    private func act(_ address: ReactorAddress, payload: JSONValue, ref: JSONValue?, from id: ConnectionID) {
        guard registry.kind(named: address.kind) != nil else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let now = ContinuousClock.now
        let lookup = state.withLock { state -> Result<any HubInstance, ProtocolError> in
            if state.draining {
                return .failure(ProtocolError(.overloaded, "the server is shutting down and takes no new actions; retry on another server or later"))
            }
            guard var session = state.sessions[id], let instance = session.joined[address] else {
                return .failure(ProtocolError(.notJoined, "join \(address) before sending actions to it"))
            }
            guard session.bucket.take(now: now) else {
                return .failure(ProtocolError(
                    .rateLimited,
                    "more than \(configuration.actionsPerSecond) actions per second (burst \(configuration.actionBurst)) on this connection; slow down and retry"
                ))
            }
            state.sessions[id] = session
            return .success(instance)
        }
        switch lookup {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let instance):
            if let error = instance.dispatch(payload, from: id, ref: ref) {
                refuse(id, error, ref: ref)
            }
        }
    }

    private func refuse(_ id: ConnectionID, _ error: ProtocolError, ref: JSONValue?) {
        logger.debug("refused", metadata: ["session": id.description, "code": error.code.rawValue, "message": error.message])
        channel.send(ServerMessage.error(error, ref: ref), to: id)
    }

    private func unknownKind(_ kind: String) -> ProtocolError {
        ProtocolError(.unknownReactor, "no reactor kind '\(kind)'; kinds: \(registry.names.joined(separator: ", "))")
    }

    // MARK: Idle instances

    /// Every `idleEviction / 2`, evicts the instances that have had no subscriber and no
    /// running effect for `idleEviction`.
    private func startEviction() {
        let interval = configuration.idleEviction / 2
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await self?.evictIdleInstances(now: .now)
            }
        }
        eviction.withLock { $0 = task }
    }

    /// Removes idle instances from memory once the store holds their last state; the next
    /// join restores them with the same epoch, version and history.
    func evictIdleInstances(now: ContinuousClock.Instant) async {
        let candidates = state.withLock { state -> [any HubInstance] in
            state.idleSince.compactMap { address, since in
                guard now - since >= configuration.idleEviction,
                      let instance = state.instances[address], instance.subscriberCount == 0, instance.isIdle
                else { return nil }
                return instance
            }
        }
        guard !candidates.isEmpty else { return }
        await store.flush()
        let evicted = state.withLock { state -> Int in
            var evicted = 0
            for instance in candidates {
                guard let current = state.instances[instance.address], current === instance,
                      instance.subscriberCount == 0, instance.isIdle, state.idleSince[instance.address] != nil
                else { continue }
                state.instances[instance.address] = nil
                state.instancesByStream[instance.stream] = nil
                state.idleSince[instance.address] = nil
                evicted += 1
            }
            return evicted
        }
        logger.debug("evicted idle instances", metadata: ["count": String(evicted)])
    }

    /// The addresses of the instances held in memory (tests and diagnostics).
    public var residentInstances: [String] {
        state.withLock { $0.instances.keys.map(\.description).sorted() }
    }
}
