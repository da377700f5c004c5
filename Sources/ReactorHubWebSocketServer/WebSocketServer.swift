public import ReactorHubProtocol
public import ReactorHubLifecycle
public import ReactorHubLogging
import ReactorHubLocking

/// A WebSocket and static-file server on one port, built on libwebsockets: the daemon's
/// `MessageTransport`.
///
/// libwebsockets runs on `configuration.threads` service threads owned by the server,
/// each with its own context; a connection lives on one of them for its whole life.
/// Every other method here may be called from any thread and never blocks beyond a short
/// lock: commands are posted to the inbox of the connection's thread, which drains it
/// after being woken.
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
        case running(ServiceThreads)
        case stopped(ServiceThreads?)
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

    /// Binds the listening socket and starts the service threads; returns the bound port.
    public func start(handler: any TransportHandler) throws(TransportError) -> Int {
        let count = max(1, configuration.threads)
        let shared = ServerShared(configuration: configuration)
        let cores = (0..<count).map { index in
            ServerCore(configuration: configuration, handler: handler, logger: logger, shared: shared, index: index, threadCount: count)
        }
        let threads = ServiceThreads(cores: cores, shared: shared)
        let started = phase.withLock { phase -> Bool in
            guard case .idle = phase else { return false }
            phase = .running(threads)
            return true
        }
        guard started else { throw TransportError(.invalidState, "the server was already started") }
        do {
            try cores[0].createContext(port: configuration.port)
            for core in cores.dropFirst() {
                try core.createContext(port: cores[0].boundPort)
            }
        } catch {
            phase.withLock { $0 = .stopped(nil) }
            throw error
        }
        if configuration.webRoot != nil && cores[0].resolver == nil {
            logger.warning("web root not found; no files will be served", metadata: ["webRoot": configuration.webRoot ?? ""])
        }
        cores[0].peers = Array(cores.dropFirst())
        for core in cores {
            core.startServiceThread()
        }
        return cores[0].boundPort
    }

    private var threads: ServiceThreads? {
        phase.withLock { phase in
            if case .running(let threads) = phase { return threads }
            return nil
        }
    }

    /// The port the server listens on, once started.
    public var port: Int? { threads?.cores[0].boundPort }

    /// The loop the service threads wait in, once started: "libuv" (epoll), or "poll" when
    /// lws could not load its libuv plugin (logged as a warning at the start); the first
    /// thread's (every thread asks for the same).
    public var eventLoop: String? { threads?.cores[0].eventLoop.rawValue }

    /// Open WebSocket connections (and event streams), on every service thread.
    public var connectionCount: Int { threads?.shared.connectionCount.load(ordering: .relaxed) ?? 0 }

    /// Sockets open on each service thread, in thread order (empty before the start).
    public var socketsPerThread: [Int] { threads?.cores.map { $0.sockets.load(ordering: .relaxed) } ?? [] }

    /// Upgrades refused for their Origin since the start.
    public var rejectedOrigins: Int { threads?.shared.originsRejected.load(ordering: .relaxed) ?? 0 }

    public func outputReady(_ id: ConnectionID) {
        threads?.core(of: id).post(.outputReady(id))
    }

    public func outputReady(_ ids: [ConnectionID]) {
        guard !ids.isEmpty, let threads else { return }
        if threads.cores.count == 1 {
            threads.cores[0].post(.outputReadyMany(ids))
            return
        }
        // One post per thread the connections live on: each thread's share, in order.
        var shares = [[ConnectionID]](repeating: [], count: threads.cores.count)
        for id in ids {
            shares[ServerCore.thread(of: id, among: threads.cores.count)].append(id)
        }
        for (index, share) in shares.enumerated() where !share.isEmpty {
            threads.cores[index].post(share.count == 1 ? .outputReady(share[0]) : .outputReadyMany(share))
        }
    }

    /// libwebsockets' `LWS_PRE`: the frame header is written in front of each payload.
    public var frameHeadroom: Int { LWSHeadroom.bytes }

    public func setReading(_ id: ConnectionID, enabled: Bool) {
        threads?.core(of: id).post(.setReading(id, enabled))
    }

    public func close(_ id: ConnectionID, _ end: ConnectionEnd, afterFlush: Bool) {
        close(id, code: end.closeCode, reason: end.reason, afterFlush: afterFlush)
    }

    /// Closes `id` with `code` and `reason`; with `afterFlush`, the output waiting is
    /// written first.
    public func close(_ id: ConnectionID, code: CloseCode, reason: String, afterFlush: Bool) {
        threads?.core(of: id).post(.close(id, code, reason, afterFlush: afterFlush))
    }

    /// Stops accepting: new upgrades are refused with 503 and `/healthz` reports 503.
    public func stopAccepting() {
        threads?.shared.refusingConnections.store(true, ordering: .relaxed)
    }

    public func shutdown(_ end: ConnectionEnd, grace: Duration) async {
        await shutdown(code: end.closeCode, reason: end.reason, grace: grace)
    }

    /// Stops the server: refuses new connections, writes what waits, closes every client
    /// with `code`, and after `grace` drops whoever is left; then ends the service threads
    /// (the listening one first, so that no socket is handed to a thread that has ended)
    /// and releases libwebsockets.
    public func shutdown(code: CloseCode, reason: String, grace: Duration) async {
        guard let threads = phase.withLock({ phase -> ServiceThreads? in
            guard case .running(let threads) = phase else { return nil }
            phase = .stopped(threads)
            return threads
        }) else { return }
        let shared = threads.shared
        shared.refusingConnections.store(true, ordering: .relaxed)
        if shared.connectionCount.load(ordering: .relaxed) == 0 {
            shared.allClosed.open()
        }
        threads.postAll(.closeAll(code, reason, afterFlush: true))
        if await !shared.allClosed.wait(timeout: grace) {
            let remaining = shared.connectionCount.load(ordering: .relaxed)
            logger.warning("shutdown grace elapsed; dropping connections", metadata: ["connections": String(remaining)])
            threads.postAll(.closeAll(code, reason, afterFlush: false))
            _ = await shared.allClosed.wait(timeout: .seconds(1))
        }
        for core in threads.cores {
            core.post(.stop)
            await core.threadEnded.wait()
        }
    }

    /// Returns once the server has shut down (its service threads ended), or at once when
    /// it never started.
    public func run() async throws {
        let threads = phase.withLock { phase -> ServiceThreads? in
            switch phase {
            case .running(let threads): threads
            case .stopped(let threads): threads
            case .idle: nil
            }
        }
        for core in threads?.cores ?? [] {
            await core.threadEnded.wait()
        }
    }
}

/// A started server's service threads and what they share.
private struct ServiceThreads: Sendable {
    let cores: [ServerCore]
    let shared: ServerShared

    /// The thread `id` lives on.
    func core(of id: ConnectionID) -> ServerCore {
        cores.count == 1 ? cores[0] : cores[ServerCore.thread(of: id, among: cores.count)]
    }

    func postAll(_ command: ServiceInbox.Command) {
        for core in cores {
            core.post(command)
        }
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
