import ReactorHubProtocol
import ReactorHubLibWebSockets
import ReactorHubDeflate
import Foundation
import ReactorHubLocking
import ReactorHubLogging
import Synchronization

/// Owns one libwebsockets context, its service thread and the connections that live on
/// it. A server has `server.threads` of them (`WebSocketServer`): the first listens and
/// hands accepted sockets to the thread with the fewest (`handOff`); what holds for the
/// server as a whole (counts, caps) is in `shared`.
///
/// Safety of `@unchecked Sendable`: the stored properties marked "service thread" are
/// touched only by the lws service thread (inside `lws_service` callbacks and the loop
/// itself) and, before that thread starts or after it ends, by the one thread that
/// starts or joins it. Everything other threads touch is a `let`, an `Atomic`, a `Latch`
/// or locked: `inbox`, `shared`, `sockets`, `running`, `threadEnded`.
final class ServerCore: LWSProtocolHandler, @unchecked Sendable {
    let configuration: TransportConfiguration
    let logger: Logger
    let handler: any TransportHandler
    let resolver: StaticFileResolver?
    let inbox = ServiceInbox()
    /// The storage `drainInbox` takes the inbox's commands into, kept between drains.
    private var spareBatch: [ServiceInbox.Command] = []
    let keepalive: Keepalive
    /// Where the keepalive's timer fires (serial: `serviceLoop` waits for it at the end).
    let keepaliveQueue = DispatchQueue(label: "reactorhub.keepalive", qos: .utility)
    let running = Atomic<Bool>(true)
    /// Opens when the service thread has ended and released the context.
    let threadEnded = Latch()
    /// The counts and caps of the whole server, shared by its service threads.
    let shared: ServerShared
    /// This thread's place among the server's (0 listens), and how many there are.
    let index: Int
    let threadCount: Int
    /// Sockets living on this thread (the hand-off picks the thread with the fewest).
    let sockets = Atomic<Int>(0)
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
    /// The server's other service threads, which the listening one hands sockets to (set
    /// before the threads start, emptied when this one ends).
    var peers: [ServerCore] = []
    /// Where the next hand-off starts looking, so that equal threads take turns.
    var nextPeer = 0
    /// Sockets refused since the last log line, by reason, and when that line was written.
    var refusedSockets: [String: Int] = [:]
    var lastRefusalLog = ContinuousClock.now - .seconds(10)
    /// The address of the socket accepted (or handed over) last, until its wsi exists;
    /// whether the reserve lent it for a health check; whether `SocketGuard.take` counted it.
    var pendingAddress: String?
    var pendingHealthCheck = false
    var pendingReserved = false
    /// The sockets the receive tap checks, by descriptor.
    var tappedSockets: [Int32: TappedSocket] = [:]
    /// Bodies of HTTP responses that are written in one go are not kept; this holds the
    /// wsi of HTTP exchanges only while lws serves a file.
    private(set) var context: OpaquePointer?
    /// The port actually bound.
    private(set) var boundPort = 0

    /// The C memory lws keeps pointers to, for the context's life.
    private let lws = LWSContext()

    init(
        configuration: TransportConfiguration, handler: any TransportHandler, logger: Logger,
        shared: ServerShared, index: Int = 0, threadCount: Int = 1
    ) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.shared = shared
        self.index = index
        self.threadCount = threadCount
        self.resolver = configuration.webRoot.flatMap { StaticFileResolver(webRoot: $0) }
        self.hosts = HostPolicy(allowed: configuration.allowedHosts, listeningOn: configuration.host)
        self.keepalive = Keepalive(pingSeconds: configuration.pingIntervalSeconds, timeoutSeconds: configuration.pingTimeoutSeconds)
    }

    deinit {
        if let context {
            _ = CloseGuard.destroying { lws.destroy(context) }
        }
    }

    /// Creates the context on the calling thread: the first thread's binds the listening
    /// socket (on `port`: 0 takes a free one), the others' listen nowhere and serve the
    /// sockets handed to them.
    func createContext(port: Int) throws(TransportError) {
        if index == 0 {
            LWSLogBridge.install(logger: logger)
            ResourceLimits.checkOpenFileLimit(for: configuration.maxConnections, reserve: configuration.descriptorReserve, logger: logger)
        }

        var options = LWSContextOptions(protocolName: configuration.subprotocol)
        options.perSessionDataSize = MemoryLayout<UnsafeMutableRawPointer?>.size
        // Each connection's receive buffer, allocated by lws at the upgrade and held for the
        // connection's life; lws also reads at most this much from the socket at once (and
        // never more than its 4 KiB service buffer). Messages longer than it arrive in pieces
        // that `InboundAssembler` joins. Measured (BENCHMARKS.md, "Idle memory per connection
        // (issue 38)"): 1 KiB holds an idle joined connection under 4 KB of resident memory
        // (2 KiB: about 4.6 KB, 4 KiB: 7 KB), for the same ingest CPU per action within the
        // noise of one sitting (issue 22's sitting had found 1 KiB a third dearer, before
        // the hot path's later changes).
        options.receiveBufferSize = 1024
        // lws 4.1.6 also limits each send() to the receive buffer's size when this is 0: the
        // rest of a larger write is copied into its own buffer and flushed later, and a close
        // that finds output so buffered ends the connection without the close frame once it
        // is flushed (flood clients saw EOF instead of 1001 at shutdown). 16 KiB is what the
        // daemon wrote per send() before, and `FrameBatch`'s size.
        options.transmitPacketSize = 16384

        // No lws validity timers: the keepalive is `Keepalive`'s sweep (lws keeps one timer per
        // connection in a sorted list, and inserting walks it: quadratic in the connections).
        options.contextRetryPolicy = LWSRetryPolicy(secondsBeforePing: 0, secondsBeforeHangup: 0)
        if index == 0 {
            options.port = port
        } else {
            options.servesAdoptedSockets = true
        }
        options.serverString = configuration.serverName
        // lws on libuv (epoll: a wake-up costs what is ready, not what is open; BENCHMARKS.md,
        // "lws on libuv") unless REACTORHUB_LWS_EVENT_LOOP=poll asks for lws' own poll(2)
        // loop. lws 4.1.6 on libuv closes each thread's event pipe twice when the context is
        // destroyed: `CloseGuard` keeps the second close from reaching a reused number.
        options.flags = [.validateUTF8, .securityHeaders]
        switch ProcessInfo.processInfo.environment["REACTORHUB_LWS_EVENT_LOOP"] {
        case nil, "", "libuv":
            options.flags.insert(.libuv)
        case "poll":
            break
        case let other?:
            throw TransportError(.invalidConfiguration, "REACTORHUB_LWS_EVENT_LOOP must be libuv or poll, not \"\(other)\"")
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

        if !ReceiveTap.isInstalled && index == 0 {
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
        guard index == 0 else {
            boundPort = port
            return
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
        // Linux keeps 15 bytes of a thread's name: "reactorhub-lws" for the only (or first)
        // thread, "reactorhub-lws1" and on for the others (set again by the thread itself).
        thread.name = index == 0 ? "reactorhub-lws" : "reactorhub-lws\(index)"
        // 8 MiB, as every other thread of the process has: walks over a JSON value recurse once
        // per nesting level, and at the parser's limit a debug build's parse takes about 2.6 MiB
        // (JSONTests' DeepDocumentTests).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The loop the context got (`LWSEventLoop.libuv` unless lws' plugin for it is missing).
    var eventLoop: LWSEventLoop { lws.eventLoop }

    private func serviceLoop() {
        // Foundation names a thread for itself only; the kernel's name (what `top -H`, `perf`
        // and /proc show) is set here, from the thread.
        _ = setThreadName(pthread_self(), index == 0 ? "reactorhub-lws" : "reactorhub-lws\(index)")
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
        // Sockets handed over after the last drain are closed, and their counts given back.
        for case .adopt(let fd, let address) in inbox.takeAll() {
            close(fd)
            sockets.subtract(1, ordering: .relaxed)
            shared.sockets.withLock { $0.cancel(address) }
        }
        if let context {
            if !CloseGuard.destroying({ lws.destroy(context) }) {
                logger.warning("libwebsockets left libuv handles open at shutdown; its context and loop were not freed")
            }
            self.context = nil
        }
        peers = []
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
        var batch: [ServiceInbox.Command] = []
        swap(&batch, &spareBatch)
        inbox.takeAll(into: &batch)
        defer {
            // Kept unless a burst grew it (a close of every connection, say).
            batch.removeAll(keepingCapacity: batch.capacity <= 1024)
            spareBatch = batch
        }
        for command in batch {
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
            case .adopt(let fd, let address):
                adopt(fd, from: address)
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

    /// Writes what waits for `id` at once if it is a WebSocket that can take it
    /// (`writeNow`), else asks for its writable callback; an event stream gets the callback.
    private func outputReady(_ id: ConnectionID) {
        if let connection = connections[id] {
            writeNow(connection)
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

extension ServerCore {
    /// A new connection's identifier: numbered per thread, interleaved over the threads
    /// (`(n - 1) × threads + index + 1`), so that `WebSocketServer` finds the thread of an
    /// identifier without a table; with one thread, 1, 2, 3…
    func nextConnectionID() -> ConnectionID {
        nextConnectionNumber += 1
        return ConnectionID(rawValue: (nextConnectionNumber - 1) * UInt64(threadCount) + UInt64(index) + 1)
    }

    /// The index of the service thread `id` lives on, among `threads`.
    static func thread(of id: ConnectionID, among threads: Int) -> Int {
        Int((id.rawValue &- 1) % UInt64(max(threads, 1)))
    }
}

/// glibc's `pthread_setname_np` (declared under `_GNU_SOURCE` only, so not in Swift's Glibc).
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
