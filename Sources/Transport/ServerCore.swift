internal import CLibWebSockets
import Foundation
import Logging
import Synchronization

/// Owns the libwebsockets context, its service thread and every connection.
///
/// Safety of `@unchecked Sendable`: the stored properties marked "service thread" are
/// touched only by the lws service thread (inside `lws_service` callbacks and the loop
/// itself) and, before that thread starts or after it ends, by the one thread that
/// starts or joins it. Everything other threads touch is a `let`, an `Atomic` or behind
/// a `Mutex`: `inbox`, `registry`, `connectionCount`, `refusingConnections`, `running`.
final class ServerCore: @unchecked Sendable {
    let configuration: TransportConfiguration
    let logger: Logger
    let delegate: any WebSocketServerDelegate
    let merger: (any OutboundMerger)?
    /// Writes that carried several merged state updates (diagnostics, benchmarks).
    let mergedWrites = Atomic<Int>(0)
    let resolver: StaticFileResolver?
    let inbox = ServiceInbox()
    /// Queue counters of open connections, for `queuedBytes(of:)` from any thread.
    let registry = Mutex<[ConnectionID: ConnectionCounters]>([:])
    let connectionCount = Atomic<Int>(0)
    let refusingConnections = Atomic<Bool>(false)
    let running = Atomic<Bool>(true)
    private let threadExit = Mutex<(finished: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    // Service thread.
    var connections: [ConnectionID: Connection] = [:]
    var nextConnectionNumber: UInt64 = 0
    /// Numbers the inbox drains, so a queue can tell updates that arrived together.
    var drainNumber: UInt64 = 0
    /// Bodies of HTTP responses that are written in one go are not kept; this holds the
    /// wsi of HTTP exchanges only while lws serves a file.
    private(set) var context: OpaquePointer?
    /// The port actually bound.
    private(set) var boundPort = 0

    // C memory lws keeps pointers to, allocated once for the context's life.
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    init(configuration: TransportConfiguration, delegate: any WebSocketServerDelegate, merger: (any OutboundMerger)?, logger: Logger) {
        self.configuration = configuration
        self.delegate = delegate
        self.merger = merger
        self.logger = logger
        self.resolver = configuration.webRoot.flatMap { StaticFileResolver(webRoot: $0) }
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        retryPolicy = .allocate(capacity: 1)
        retryPolicy.initialize(to: lws_retry_bo_t())
    }

    deinit {
        if let context {
            lws_context_destroy(context)
        }
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        retryPolicy.deinitialize(count: 1)
        retryPolicy.deallocate()
        for string in cStrings {
            free(string)
        }
    }

    private func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(text)!
        cStrings.append(pointer)
        return pointer
    }

    /// Creates the context and binds the listening socket, on the calling thread.
    func createContext() throws(TransportError) {
        LWSLogBridge.install()
        ResourceLimits.raiseOpenFileLimit(toAtLeast: configuration.maxConnections + 256, logger: logger)

        protocols[0].name = UnsafePointer(cString(configuration.subprotocol))
        protocols[0].callback = reactorHubServiceCallback
        protocols[0].per_session_data_size = MemoryLayout<UnsafeMutableRawPointer?>.size
        protocols[0].rx_buffer_size = 16384

        retryPolicy.pointee.secs_since_valid_ping = UInt16(clamping: configuration.pingIntervalSeconds)
        retryPolicy.pointee.secs_since_valid_hangup = UInt16(clamping: configuration.pingTimeoutSeconds)

        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        info.protocols = UnsafePointer(protocols)
        info.retry_and_idle_policy = UnsafePointer(retryPolicy)
        info.server_string = UnsafePointer(cString(configuration.serverName))
        info.options = rh_lws_option_validate_utf8() | rh_lws_option_security_headers()
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // fd_limit_per_thread stays 0: lws then sizes its fd table from the process limit
        // (raised above) and finds a socket's connection by index; a smaller explicit limit
        // makes it search the table linearly.
        info.timeout_secs = 10
        info.keepalive_timeout = 10
        switch ListenAddress(configuration.host) {
        case .any:
            info.iface = nil
        case .ipv4Any:
            info.iface = nil
            info.options |= rh_lws_option_disable_ipv6()
        case .ipv4(let address):
            info.iface = UnsafePointer(cString(address))
            info.options |= rh_lws_option_disable_ipv6()
        case .ipv6(let address):
            info.iface = UnsafePointer(cString(address))
        case .invalid:
            throw TransportError(.invalidConfiguration, "host '\(configuration.host)' is not an IP address or 'localhost'")
        }

        guard let created = lws_create_context(&info) else {
            throw TransportError(
                .cannotListen,
                "could not listen on \(configuration.host):\(configuration.port) (address in use or not available)"
            )
        }
        context = created
        guard let vhost = lws_get_vhost_by_name(created, "default") else {
            throw TransportError(.cannotListen, "libwebsockets created no listening vhost")
        }
        boundPort = Int(lws_get_vhost_listen_port(vhost))
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
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func serviceLoop() {
        while running.load(ordering: .acquiring), let context {
            lws_service(context, 0)
        }
        if let context {
            lws_context_destroy(context)
            self.context = nil
        }
        let waiters = threadExit.withLock { state in
            state.finished = true
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    /// Waits until the service thread has ended and released the context.
    func waitForServiceThread() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyFinished = threadExit.withLock { state in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if alreadyFinished { continuation.resume() }
        }
    }

    /// Queues `command` for the service thread and wakes it when needed.
    func post(_ command: ServiceInbox.Command) {
        if inbox.post(command), let context {
            lws_cancel_service(context)
        }
    }

    /// Runs the commands posted by other threads (service thread).
    func drainInbox() {
        drainNumber &+= 1
        for command in inbox.takeAll() {
            switch command {
            case .send(let message, let id):
                if let connection = connections[id] {
                    enqueue(message, on: connection)
                }
            case .broadcast(let message, let ids):
                for id in ids {
                    if let connection = connections[id] {
                        enqueue(message, on: connection)
                    }
                }
            case .close(let id, let code, let reason, let afterFlush):
                if let connection = connections[id] {
                    scheduleClose(connection, code: code, reason: reason, afterFlush: afterFlush)
                }
            case .closeAll(let code, let reason, let afterFlush):
                for connection in connections.values {
                    scheduleClose(connection, code: code, reason: reason, afterFlush: afterFlush)
                }
            case .stop:
                running.store(false, ordering: .releasing)
            }
        }
    }

    /// Appends `message` to the connection's queue under the slow-consumer policy.
    func enqueue(_ message: OutboundMessage, on connection: Connection) {
        guard connection.pendingClose == nil || connection.pendingClose?.afterFlush == true else { return }
        switch connection.queue.append(message, arrival: drainNumber, peerIsChoked: { lws_send_pipe_choked(connection.wsi) != 0 }) {
        case .queued:
            break
        case .discarded:
            // Nothing new to write; if the queue has already drained, the resync is due now.
            askForResyncIfDrained(connection)
            return
        case .lagStarted(let dropped, let streams):
            logger.info(
                "slow connection: discarded queued updates",
                metadata: [
                    "session": connection.id.description,
                    "discarded": String(dropped),
                    "streams": streams.map(\.description).joined(separator: ","),
                ]
            )
        case .overloaded:
            logger.warning(
                "connection too slow to keep its replies; closing",
                metadata: ["session": connection.id.description, "queuedBytes": String(connection.queue.bytes)]
            )
            connection.queue.removeAll()
            scheduleClose(connection, code: .tryAgainLater, reason: "too slow to keep up", afterFlush: false)
        }
        connection.publishQueueSize()
        requestWritable(connection)
    }

    func scheduleClose(_ connection: Connection, code: CloseCode, reason: String, afterFlush: Bool) {
        if let existing = connection.pendingClose, !existing.afterFlush { return }
        if !afterFlush {
            connection.queue.removeAll()
            connection.publishQueueSize()
        }
        connection.pendingClose = .init(code: code, reason: reason, afterFlush: afterFlush)
        requestWritable(connection)
    }

    func requestWritable(_ connection: Connection) {
        guard !connection.writableRequested else { return }
        connection.writableRequested = true
        lws_callback_on_writable(connection.wsi)
    }
}
