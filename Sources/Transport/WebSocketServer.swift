public import Logging
import Synchronization

/// A WebSocket and static-file server on one port, built on libwebsockets.
///
/// libwebsockets runs on one service thread owned by the server; every other method
/// here may be called from any thread and never blocks beyond a short lock: sends are
/// posted to an inbox that the service thread drains after being woken.
///
/// ```swift
/// let server = WebSocketServer(configuration: config)
/// let port = try server.start(delegate: hub)
/// server.send(OutboundMessage(text: "{\"type\":\"pong\"}"), to: id)
/// await server.shutdown(grace: .seconds(5))
/// ```
public final class WebSocketServer: Sendable {
    private enum Phase: Sendable {
        case idle
        case running(ServerCore)
        case stopped
    }

    /// The configuration the server was created with.
    public let configuration: TransportConfiguration
    private let logger: Logger
    private let phase = Mutex<Phase>(.idle)

    /// Creates a server; nothing is bound until `start(delegate:)`.
    public init(configuration: TransportConfiguration, logger: Logger = Logger(label: "transport")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Binds the listening socket and starts the service thread; returns the bound port.
    /// The server keeps `delegate` until it has shut down. With a `merger`, state updates
    /// of one stream that piled up in a connection's queue leave as one message.
    @discardableResult
    public func start(delegate: any WebSocketServerDelegate, merger: (any OutboundMerger)? = nil) throws(TransportError) -> Int {
        let core = ServerCore(configuration: configuration, delegate: delegate, merger: merger, logger: logger)
        let started = phase.withLock { phase -> Bool in
            guard case .idle = phase else { return false }
            phase = .running(core)
            return true
        }
        guard started else { throw TransportError(.invalidState, "the server was already started") }
        do {
            try core.createContext()
        } catch {
            phase.withLock { $0 = .stopped }
            throw error
        }
        if configuration.webRoot != nil && core.resolver == nil {
            logger.warning("web root not found; no files will be served", metadata: ["webRoot": configuration.webRoot ?? ""])
        }
        core.startServiceThread()
        return core.boundPort
    }

    private var core: ServerCore? {
        phase.withLock { phase in
            if case .running(let core) = phase { return core }
            return nil
        }
    }

    /// The port the server listens on, once started.
    public var port: Int? { core?.boundPort }

    /// Writes that carried several merged state updates since the start.
    public var mergedWrites: Int { core?.mergedWrites.load(ordering: .relaxed) ?? 0 }

    /// Open WebSocket connections.
    public var connectionCount: Int { core?.connectionCount.load(ordering: .relaxed) ?? 0 }

    /// Payload bytes queued for `id` and not yet written, or nil if it is not open.
    public func queuedBytes(of id: ConnectionID) -> Int? {
        guard let core else { return nil }
        return core.registry.withLock { $0[id] }?.queuedBytes.load(ordering: .relaxed)
    }

    /// Queues `message` for one connection. Messages to a connection keep their order.
    public func send(_ message: OutboundMessage, to id: ConnectionID) {
        core?.post(.send(message, id))
    }

    /// Queues the same `message` (one buffer, shared) for every connection in `ids`.
    public func send(_ message: OutboundMessage, to ids: [ConnectionID]) {
        guard !ids.isEmpty else { return }
        core?.post(.broadcast(message, ids))
    }

    /// Closes one connection with `code`; with `afterFlush`, what is queued is written first.
    public func close(_ id: ConnectionID, code: CloseCode, reason: String, afterFlush: Bool = true) {
        core?.post(.close(id, code, reason, afterFlush: afterFlush))
    }

    /// Stops accepting: new upgrades are refused with 503 and `/healthz` reports 503.
    public func stopAccepting() {
        core?.refusingConnections.store(true, ordering: .relaxed)
    }

    /// Stops the server: refuses new connections, writes what is queued, closes every
    /// client with `code` (1001 by default), and after `grace` drops whoever is left;
    /// then ends the service thread and releases libwebsockets.
    public func shutdown(
        code: CloseCode = .goingAway,
        reason: String = "server shutting down",
        grace: Duration = .seconds(5)
    ) async {
        guard let core = phase.withLock({ phase -> ServerCore? in
            guard case .running(let core) = phase else { return nil }
            phase = .stopped
            return core
        }) else { return }
        core.refusingConnections.store(true, ordering: .relaxed)
        core.post(.closeAll(code, reason, afterFlush: true))
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        while core.connectionCount.load(ordering: .relaxed) > 0 && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let remaining = core.connectionCount.load(ordering: .relaxed)
        if remaining > 0 {
            logger.warning("shutdown grace elapsed; dropping connections", metadata: ["connections": String(remaining)])
            core.post(.closeAll(code, reason, afterFlush: false))
            let hardDeadline = clock.now + .milliseconds(500)
            while core.connectionCount.load(ordering: .relaxed) > 0 && clock.now < hardDeadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        core.post(.stop)
        await core.waitForServiceThread()
    }
}
