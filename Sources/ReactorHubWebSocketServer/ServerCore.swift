import ReactorHubProtocol
import ReactorHubLibWebSockets
import ReactorHubDeflate
import Foundation
import ReactorHubLocking
import ReactorHubLogging
import Synchronization

/// Owns the libwebsockets context, its service thread and every connection.
///
/// Safety of `@unchecked Sendable`: the stored properties marked "service thread" are
/// touched only by the lws service thread (inside `lws_service` callbacks and the loop
/// itself) and, before that thread starts or after it ends, by the one thread that
/// starts or joins it. Everything other threads touch is a `let`, an `Atomic` or a
/// `Latch`: `inbox`, `connectionCount`, `refusingConnections`, `running`, `threadEnded`,
/// `allClosed`.
final class ServerCore: LWSProtocolHandler, @unchecked Sendable {
    let configuration: TransportConfiguration
    let logger: Logger
    let handler: any TransportHandler
    let resolver: StaticFileResolver?
    let inbox = ServiceInbox()
    let keepalive: Keepalive
    /// Where the keepalive's timer fires (serial: `serviceLoop` waits for it at the end).
    let keepaliveQueue = DispatchQueue(label: "reactorhub.keepalive", qos: .utility)
    let connectionCount = Atomic<Int>(0)
    let refusingConnections = Atomic<Bool>(false)
    let running = Atomic<Bool>(true)
    /// Opens when the service thread has ended and released the context.
    let threadEnded = Latch()
    /// Opens when no connection is left once the server refuses new ones (shutdown).
    let allClosed = Latch()
    /// Upgrades refused for their Origin (metrics).
    let originsRejected = Atomic<Int>(0)
    /// The `Host` names answered (`security.allowedHosts`).
    let hosts: HostPolicy

    // Service thread.
    var connections: [ConnectionID: Connection] = [:]
    /// Small messages of one writable callback, framed for one write.
    let frameBatch = FrameBatch()
    /// permessage-deflate's compressor: one per service thread, made when a frame is first
    /// compressed (its zlib state is about 256 KB).
    lazy var deflater = MessageDeflater()
    /// Inflaters lent to connections while they receive a compressed message.
    let inflaters = InflaterPool()
    var nextConnectionNumber: UInt64 = 0
    /// `LWSLogBridge.acceptFailures` at the last service pass.
    var acceptFailures = 0
    /// Open event streams, by connection and by wsi, and the buffer their events are
    /// written from.
    var streams: [ConnectionID: EventStream] = [:]
    var streamByWSI: [UInt: ConnectionID] = [:]
    var streamBuffer: [UInt8] = []
    /// HTTP requests the handler answers, by number and by wsi.
    var exchanges: [UInt64: Exchange] = [:]
    var exchangeByWSI: [UInt: UInt64] = [:]
    var nextExchange: UInt64 = 0
    /// Accepted sockets by peer address, against the per-address and descriptor caps.
    var sockets: SocketGuard
    /// The cap on new upgrades per second.
    var upgrades: RateGate
    /// The cap on TLS handshakes per second per peer address (with `tls`).
    var handshakes: AddressRateGates
    /// Sockets refused since the last log line, by reason, and when that line was written.
    var refusedSockets: [String: Int] = [:]
    var lastRefusalLog = ContinuousClock.now - .seconds(10)
    /// The address of the socket accepted last, until its wsi exists, and whether the
    /// reserve lent it for a health check.
    var pendingAddress: String?
    var pendingHealthCheck = false
    /// The sockets the receive tap checks, by descriptor.
    var tappedSockets: [Int32: TappedSocket] = [:]
    /// Bodies of HTTP responses that are written in one go are not kept; this holds the
    /// wsi of HTTP exchanges only while lws serves a file.
    private(set) var context: OpaquePointer?
    /// The port actually bound.
    private(set) var boundPort = 0

    /// The C memory lws keeps pointers to, for the context's life.
    private let lws = LWSContext()

    init(configuration: TransportConfiguration, handler: any TransportHandler, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.resolver = configuration.webRoot.flatMap { StaticFileResolver(webRoot: $0) }
        self.hosts = HostPolicy(allowed: configuration.allowedHosts, listeningOn: configuration.host)
        self.sockets = SocketGuard(
            perAddress: configuration.maxConnectionsPerAddress,
            descriptorLimit: ResourceLimits.openFileLimit,
            reserve: configuration.descriptorReserve
        )
        self.upgrades = RateGate(perSecond: configuration.upgradesPerSecond)
        self.handshakes = AddressRateGates(perSecond: configuration.tlsHandshakesPerSecond, burst: configuration.tlsHandshakeBurst)
        self.keepalive = Keepalive(pingSeconds: configuration.pingIntervalSeconds, timeoutSeconds: configuration.pingTimeoutSeconds)
    }

    deinit {
        if let context {
            lws.destroy(context)
        }
    }

    /// Creates the context and binds the listening socket, on the calling thread.
    func createContext() throws(TransportError) {
        LWSLogBridge.install(logger: logger)
        ResourceLimits.checkOpenFileLimit(for: configuration.maxConnections, reserve: configuration.descriptorReserve, logger: logger)

        var options = LWSContextOptions(protocolName: configuration.subprotocol)
        options.perSessionDataSize = MemoryLayout<UnsafeMutableRawPointer?>.size
        // Each connection's receive buffer, allocated by lws at the upgrade and held for the
        // connection's life; lws also reads at most this much from the socket at once (and
        // never more than its 4 KiB service buffer). Messages longer than it arrive in pieces
        // that `InboundAssembler` joins. Measured (BENCHMARKS.md, "Idle connections"): 2 KiB
        // holds an idle joined connection to about 5 KB of resident memory against 7 KB at
        // 4 KiB, for the same ingest CPU per action within noise; 1 KiB reads cost a third
        // more CPU per action.
        options.receiveBufferSize = 2048
        // lws 4.1.6 also limits each send() to the receive buffer's size when this is 0: the
        // rest of a larger write is copied into its own buffer and flushed later, and a close
        // that finds output so buffered ends the connection without the close frame once it
        // is flushed (flood clients saw EOF instead of 1001 at shutdown). 16 KiB is what the
        // daemon wrote per send() before, and `FrameBatch`'s size.
        options.transmitPacketSize = 16384

        // No lws validity timers: the keepalive is `Keepalive`'s sweep (lws keeps one timer per
        // connection in a sorted list, and inserting walks it: quadratic in the connections).
        options.contextRetryPolicy = LWSRetryPolicy(secondsBeforePing: 0, secondsBeforeHangup: 0)
        options.port = configuration.port
        options.serverString = configuration.serverName
        // On libuv (epoll): a wake-up costs what is ready, not what is open (DESIGN.md,
        // "Threads"; BENCHMARKS.md, "lws on libuv").
        // REACTORHUB_LWS_EVENT_LOOP=poll keeps lws' own loop (for comparisons and diagnosis).
        options.flags = [.validateUTF8, .securityHeaders]
        if ProcessInfo.processInfo.environment["REACTORHUB_LWS_EVENT_LOOP"] != "poll" {
            options.flags.insert(.libuv)
        }
        if let tls = configuration.tls {
            options.flags.insert(.sslGlobalInit)
            options.tlsCertificateFile = tls.certFile
            options.tlsPrivateKeyFile = tls.keyFile
            // HTTP/1.1 only: lws would otherwise offer h2 by ALPN, which every browser takes,
            // and the responses, refusals and upgrades here are written for HTTP/1.1.
            options.alpn = "http/1.1"
        }
        // Header space per request: above the 431 limit the receive tap enforces, so that
        // lws never runs out of it first (it would drop the connection without a response).
        // Requests beyond the pool wait for one to be freed; the pool keeps the header space
        // held at once to what lws' defaults allowed (4 KiB for each possible socket).
        let headerSpace = configuration.maxRequestHeadBytes * 2
        let sockets = configuration.maxConnections + 256
        options.maxHTTPHeaderData = UInt32(clamping: headerSpace)
        options.maxHTTPHeaderPool = UInt32(clamping: max(64, min(sockets, 4096 * sockets / headerSpace)))
        // fd_limit_per_thread stays 0: lws then sizes its fd table from the process limit
        // (raised above) and finds a socket's connection by index; a smaller explicit limit
        // makes it search the table linearly.
        options.timeoutSeconds = 10
        options.keepaliveTimeoutSeconds = 10
        switch ListenAddress(configuration.host) {
        case .any:
            options.interface = nil
        case .ipv4Any:
            options.interface = nil
            options.flags.insert(.disableIPv6)
        case .ipv4(let address):
            options.interface = address
            options.flags.insert(.disableIPv6)
        case .ipv6(let address):
            options.interface = address
        case .invalid:
            throw TransportError(.invalidConfiguration, "host '\(configuration.host)' is not an IP address or 'localhost'")
        }

        if !ReceiveTap.isInstalled {
            logger.warning(
                "the RFC 6455 checks in front of libwebsockets are off: its recv import could not be tapped",
                metadata: ["effect": "unmasked frames accepted, no 431, some violations dropped without a close code"]
            )
        }
        guard let created = lws.create(options, handler: self) else {
            throw TransportError(
                .cannotListen,
                "cannot listen on \(configuration.host):\(configuration.port): the address is in use (another process listens on it) or not available"
            )
        }
        context = created
        if let fallback = lws.eventLoopFallback {
            logger.warning("libwebsockets runs on its poll(2) loop instead of libuv", metadata: ["reason": fallback])
        }
        guard let port = LWS.listenPort(created, vhost: "default") else {
            throw TransportError(.cannotListen, "libwebsockets created no listening vhost")
        }
        boundPort = port
        guard boundPort > 0 else {
            throw TransportError(.cannotListen, "could not listen on \(configuration.host):\(configuration.port)")
        }
    }

    /// Starts the service thread.
    func startServiceThread() {
        let thread = Thread { [self] in
            serviceLoop()
        }
        thread.name = "reactorhub-lws"
        // 8 MiB, as every other thread of the process has: walks over a JSON value recurse once
        // per nesting level, and at the parser's limit a debug build's parse takes about 2.6 MiB
        // (JSONTests' DeepDocumentTests).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The loop the context got (`LWSEventLoop.libuv` unless lws' plugin for it is missing).
    var eventLoop: LWSEventLoop { lws.eventLoop }

    private func serviceLoop() {
        acceptFailures = LWSLogBridge.acceptFailures
        ReceiveTap.attach(self)
        defer { ReceiveTap.detach() }
        let keepaliveTimer = startKeepaliveTimer()
        // On libuv one call serves until `.stop` stops the loop; on poll, one pass.
        while running.load(ordering: .acquiring), let context {
            lws.service(context)
        }
        // No sweep may post (and read `context`) once it is released: cancelled, and the
        // timer's queue passed, so that a handler already running has returned.
        keepaliveTimer.cancel()
        keepaliveQueue.sync {}
        if let context {
            if !lws.destroy(context) {
                logger.warning("libwebsockets left libuv handles open at shutdown; its context and loop were not freed")
            }
            self.context = nil
        }
        threadEnded.open()
    }

    /// After each service pass (service thread): lws retries a failed accept (EMFILE,
    /// ENFILE) at once and forever, so back off instead of spinning, and say so at most
    /// once a second.
    func lwsServicePassEnded() {
        let failures = LWSLogBridge.acceptFailures
        if failures != acceptFailures {
            noteRefusal("accept failed (out of descriptors)", count: failures - acceptFailures)
            acceptFailures = failures
            usleep(20_000)
        }
    }

    /// Queues `command` for the service thread and wakes it when needed.
    func post(_ command: ServiceInbox.Command) {
        if inbox.post(command), let context {
            LWS.cancelService(context)
        }
    }

    /// Runs the commands posted by other threads (service thread).
    func drainInbox() {
        for command in inbox.takeAll() {
            switch command {
            case .outputReady(let id):
                outputReady(id)
            case .outputReadyMany(let ids):
                for id in ids {
                    outputReady(id)
                }
            case .setReading(let id, let enabled):
                if let connection = connections[id], connection.echo == nil, connection.readingPaused == enabled {
                    connection.readingPaused = !enabled
                    LWS.setReceiving(connection.wsi, enabled)
                }
            case .close(let id, let code, let reason, let afterFlush):
                if let connection = connections[id] {
                    scheduleClose(connection, code: code, reason: reason, afterFlush: afterFlush)
                } else if let stream = streams[id] {
                    scheduleClose(stream, code: code, reason: reason, afterFlush: afterFlush)
                }
            case .closeAll(let code, let reason, let afterFlush):
                for connection in connections.values {
                    scheduleClose(connection, code: code, reason: reason, afterFlush: afterFlush)
                }
                for stream in streams.values {
                    scheduleClose(stream, code: code, reason: reason, afterFlush: afterFlush)
                }
            case .httpResponse(let id, let response):
                exchangeAnswered(id, response)
            case .keepaliveSweep:
                sweepKeepalive()
            case .stop:
                running.store(false, ordering: .releasing)
                lws.stopService()
            }
        }
    }

    /// Asks for the writable callback of `id`, a WebSocket or an event stream, if still open.
    private func outputReady(_ id: ConnectionID) {
        if let connection = connections[id] {
            requestWritable(connection)
        } else if let stream = streams[id] {
            requestWritable(stream)
        }
    }

    /// Closes `connection` from its next writable callback. A close that drops the output
    /// (1013 and the other policy closes) still waits for room for its close frame; a peer
    /// that reads nothing would give it none, and keep its socket and backlog until the
    /// keepalive gave up (`keepalive.timeoutSeconds`). So lws drops the socket when no
    /// room came within `closeFrameTimeoutSeconds`.
    func scheduleClose(_ connection: Connection, code: CloseCode, reason: String, afterFlush: Bool) {
        if let existing = connection.pendingClose, !existing.afterFlush { return }
        connection.pendingClose = .init(code: code, reason: reason, afterFlush: afterFlush)
        if !afterFlush {
            LWS.setCloseSendTimeout(connection.wsi, seconds: Int32(clamping: configuration.closeFrameTimeoutSeconds))
        }
        requestWritable(connection)
    }

    func requestWritable(_ connection: Connection) {
        guard !connection.writableRequested else { return }
        connection.writableRequested = true
        LWS.callbackOnWritable(connection.wsi)
    }
}
