public import ReactorHubProtocol
public import ReactorHubLifecycle
public import ReactorHubLogging
import ReactorHubLocking

/// A WebSocket and static-file server on one port, built on libwebsockets: the daemon's
/// `MessageTransport`.
///
/// libwebsockets runs on one service thread owned by the server; every other method
/// here may be called from any thread and never blocks beyond a short lock: commands are
/// posted to an inbox that the service thread drains after being woken.
///
/// ```swift
/// let server = WebSocketServer(configuration: config, logger: logger)
/// let port = try server.start(handler: hub)
/// server.outputReady(id)            // the hub has something for `id`
/// await server.shutdown(code: .goingAway, reason: "server shutting down", grace: .seconds(5))
/// ```
public final class WebSocketServer: MessageTransport {
    private enum Phase: Sendable {
        case idle
        case running(ServerCore)
        case stopped(ServerCore?)
    }

    /// The configuration the server was created with.
    public let configuration: TransportConfiguration
    private let logger: Logger
    private let phase = Locked<Phase>(.idle)

    /// Creates a server; nothing is bound until `start(handler:)`.
    public init(configuration: TransportConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Binds the listening socket and starts the service thread; returns the bound port.
    public func start(handler: any TransportHandler) throws(TransportError) -> Int {
        let core = ServerCore(configuration: configuration, handler: handler, logger: logger)
        let started = phase.withLock { phase -> Bool in
            guard case .idle = phase else { return false }
            phase = .running(core)
            return true
        }
        guard started else { throw TransportError(.invalidState, "the server was already started") }
        do {
            try core.createContext()
        } catch {
            phase.withLock { $0 = .stopped(nil) }
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

    /// The loop libwebsockets' service thread waits in, once started: "libuv" (epoll), or
    /// "poll" when lws could not load its libuv plugin (logged as a warning at the start).
    public var eventLoop: String? { core?.eventLoop.rawValue }

    /// Open WebSocket connections.
    public var connectionCount: Int { core?.connectionCount.load(ordering: .relaxed) ?? 0 }

    /// Upgrades refused for their Origin since the start.
    public var rejectedOrigins: Int { core?.originsRejected.load(ordering: .relaxed) ?? 0 }

    public func outputReady(_ id: ConnectionID) {
        core?.post(.outputReady(id))
    }

    public func outputReady(_ ids: [ConnectionID]) {
        guard !ids.isEmpty else { return }
        core?.post(.outputReadyMany(ids))
    }

    /// libwebsockets' `LWS_PRE`: the frame header is written in front of each payload.
    public var frameHeadroom: Int { LWSHeadroom.bytes }

    public func setReading(_ id: ConnectionID, enabled: Bool) {
        core?.post(.setReading(id, enabled))
    }

    public func close(_ id: ConnectionID, _ end: ConnectionEnd, afterFlush: Bool) {
        close(id, code: end.closeCode, reason: end.reason, afterFlush: afterFlush)
    }

    /// Closes `id` with `code` and `reason`; with `afterFlush`, the output waiting is
    /// written first.
    public func close(_ id: ConnectionID, code: CloseCode, reason: String, afterFlush: Bool) {
        core?.post(.close(id, code, reason, afterFlush: afterFlush))
    }

    /// Stops accepting: new upgrades are refused with 503 and `/healthz` reports 503.
    public func stopAccepting() {
        core?.refusingConnections.store(true, ordering: .relaxed)
    }

    public func shutdown(_ end: ConnectionEnd, grace: Duration) async {
        await shutdown(code: end.closeCode, reason: end.reason, grace: grace)
    }

    /// Stops the server: refuses new connections, writes what waits, closes every client
    /// with `code`, and after `grace` drops whoever is left; then ends the service thread
    /// and releases libwebsockets.
    public func shutdown(code: CloseCode, reason: String, grace: Duration) async {
        guard let core = phase.withLock({ phase -> ServerCore? in
            guard case .running(let core) = phase else { return nil }
            phase = .stopped(core)
            return core
        }) else { return }
        core.refusingConnections.store(true, ordering: .relaxed)
        if core.connectionCount.load(ordering: .relaxed) == 0 {
            core.allClosed.open()
        }
        core.post(.closeAll(code, reason, afterFlush: true))
        if await !core.allClosed.wait(timeout: grace) {
            let remaining = core.connectionCount.load(ordering: .relaxed)
            logger.warning("shutdown grace elapsed; dropping connections", metadata: ["connections": String(remaining)])
            core.post(.closeAll(code, reason, afterFlush: false))
            _ = await core.allClosed.wait(timeout: .seconds(1))
        }
        core.post(.stop)
        await core.threadEnded.wait()
    }

    /// Returns once the server has shut down (its service thread ended), or at once when
    /// it never started.
    public func run() async throws {
        let core = phase.withLock { phase -> ServerCore? in
            switch phase {
            case .running(let core): core
            case .stopped(let core): core
            case .idle: nil
            }
        }
        await core?.threadEnded.wait()
    }
}

/// The server as a service: it serves until asked to stop, then writes what each
/// connection has waiting, closes every client with 1001 (dropping those still open
/// after `shutdownGrace`) and returns.
extension WebSocketServer: Service {
    public var name: String { "server" }

    public func triggerGracefulShutdown() {
        Task { await shutdown(code: .goingAway, reason: "server shutting down", grace: configuration.shutdownGrace) }
    }
}
