import ReactorHubStore
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
public import ReactorHubEngine
import ReactorHubAuth
import ReactorHubRedis
import ReactorHubLifecycle
import ReactorHubMetrics
import ReactorHubLogging
import ReactorHubSQLite
import ReactorHubKinds
import Reactor
import ReactorHubJSON
import ReactorHubProtocol
public import ReactorHubWebSocketServer
import ReactorHubWebSocketClient

/// The `reactorhub` executable: reads the configuration, serves the shipped reactor kinds
/// and shuts down gracefully on SIGINT or SIGTERM.
public enum Daemon {
    /// The version `--version` and `hello.server` report.
    public static let version = ReactorHubVersion.current

    /// Runs the daemon; returns the process exit status (0 after a clean shutdown, 2 for a
    /// bad command line or configuration, a database another daemon holds or a port it
    /// cannot listen on, 1 when the server cannot start otherwise).
    public static func main(arguments: [String], environment: [String: String]) async -> Int32 {
        await main(arguments: arguments, environment: environment) { kinds in try kinds.includeShipped() }
    }

    /// Runs the daemon with the kinds `register` registers (`ReactorHubServer`).
    package static func main(arguments: [String], environment: [String: String], register: KindRegistration) async -> Int32 {
        let options: CommandLineOptions
        let loaded: ConfigurationLoader.Loaded
        do {
            options = try CommandLineOptions(arguments: arguments)
            switch options.mode {
            case .help:
                print(CommandLineOptions.usage, terminator: "")
                return 0
            case .tokenHelp:
                print(CommandLineOptions.tokenUsage, terminator: "")
                return 0
            case .typesHelp:
                print(CommandLineOptions.typesUsage, terminator: "")
                return 0
            case .types(let request):
                return await printTypes(request)
            case .version:
                print("reactorhub \(version)")
                return 0
            case .printConfigReference:
                print(ConfigurationReference.markdownTable, terminator: "")
                return 0
            case .token, .run, .printConfig:
                break
            }
            loaded = try ConfigurationLoader(context: .live(environment: environment))
                .load(configFile: options.configFile, flags: options.flags)
        } catch {
            printError(error.message)
            return 2
        }
        if options.mode == .printConfig {
            print(PrettyPrinter.render(loaded.configuration.json()))
            return 0
        }
        if case .token(let request) = options.mode {
            return mint(request, with: loaded.configuration)
        }
        return await serve(loaded.configuration, from: loaded.file, register: register)
    }

    private static func serve(_ configuration: Configuration, from file: String?, register: KindRegistration) async -> Int32 {
        switch configuration.logFormat {
        case .text: LoggingSystem.bootstrap(StandardErrorLogHandler(), level: configuration.logLevel)
        case .json: LoggingSystem.bootstrap(JSONLogHandler(), level: configuration.logLevel)
        }
        let logger = Logger(label: "reactorhub")
        let registrar = KindRegistrar(configuration: configuration)
        do {
            try register(registrar)
        } catch let error as ConfigurationError {
            printError(error.message)
            return 2
        } catch {
            printError("\(error)")
            return 2
        }
        if let unclaimed = registrar.unclaimedSettings().first {
            printError("reactors.\(unclaimed): no reactor kind '\(unclaimed)' is registered; kinds: \(registrar.registry.names.joined(separator: ", "))")
            return 2
        }
        let registry = registrar.registry
        let auth: AuthPolicy?
        let tls: TransportConfiguration.TLSFiles?
        do {
            auth = try configuration.authPolicy()
            tls = try configuration.tlsFiles()
        } catch {
            printError(error.message)
            return 2
        }
        var services: [any Service] = []
        let store: any StateStore
        var sqlite: SQLiteStateStore?
        var cluster: ClusterNode?
        switch configuration.persistence.kind {
        case .memory:
            store = MemoryStateStore(dropsEvicted: true)
        case .sqlite:
            do {
                var options = SQLiteStateStore.Options(path: configuration.persistence.path)
                options.flushInterval = .milliseconds(configuration.persistence.flushMs)
                options.flushChanges = configuration.persistence.flushChanges
                options.fullSync = configuration.persistence.durableAcks
                let opened = try SQLiteStateStore.open(options, logger: logger)
                store = opened
                sqlite = opened
                services.append(opened)
            } catch {
                printError(error.message)
                return 2
            }
        case .redis:
            guard let section = configuration.cluster, let redis = RedisConfiguration(address: section.redis) else {
                printError("cluster.redis must be HOST:PORT")
                return 2
            }
            let node = ClusterNode(
                options: clusterOptions(configuration, section), redis: redis, sentinel: sentinelConfiguration(section), logger: logger
            )
            node.start()
            cluster = node
            services.append(node)
            // Redis holds the state; the memory store is what the seam needs and stays empty.
            store = MemoryStateStore()
        }
        var transport = configuration.transportConfiguration()
        transport.tls = tls
        let server = WebSocketServer(configuration: transport, logger: logger)
        var hubConfiguration = configuration.hubConfiguration(serverName: "reactorhub/\(version)")
        hubConfiguration.auth = auth
        let webhooks = configuration.webhookService(logger: logger)
        hubConfiguration.events = webhooks
        let hub = Hub(
            configuration: hubConfiguration,
            registry: registry,
            store: store,
            transport: server,
            cluster: cluster,
            logger: logger
        )
        if let cluster {
            hub.addReadinessCheck { cluster.unavailableReason }
            hub.addMetricsSource { out in cluster.render(into: &out) }
        }
        if let webhooks {
            hub.addMetricsSource { out in webhooks.render(into: &out) }
        }
        hub.addMetricsSource { [server] out in
            out.family("reactorhub_origin_rejected_total", type: "counter", help: "WebSocket upgrades refused for their Origin.")
            out.sample("reactorhub_origin_rejected_total", server.rejectedOrigins)
            out.family("reactorhub_service_thread_sockets", type: "gauge", help: "Sockets open on each service thread (server.threads).")
            for (index, count) in server.socketsPerThread.enumerated() {
                out.sample("reactorhub_service_thread_sockets", count, labels: [("thread", String(index))])
            }
        }
        let terminations = SignalWaiter.observeTermination()
        // A trap in a kind's code ends the process: it says where first (docs/reactors.md).
        TrapReport.install()
        if let cluster, !(await cluster.waitUntilConnected(timeout: .seconds(5))) {
            // Served all the same: /readyz says 503 until the link is up, joins wait for it.
            logger.warning("Redis not reachable yet; serving, not ready", metadata: ["reason": cluster.unavailableReason ?? "-"])
        }
        let port: Int
        do {
            port = try hub.start()
        } catch {
            // Nothing was written to the store: a start that fails leaves it as it was.
            if error.code == .cannotListen {
                printError("port: \(error.message)")
                return 2
            }
            printError(error.message)
            return 1
        }
        do {
            try sqlite?.beginRun()
        } catch {
            printError(error.message)
            return 1
        }
        print("listening on \(tls == nil ? "http" : "https")://\(displayHost(configuration.host)):\(port)")
        fflush(nil)
        if auth == nil && !ListenAddress.isLoopback(configuration.host) {
            logger.warning(
                "listening beyond this machine without an auth section: anyone who can reach the port may join and act on every reactor",
                metadata: ["host": configuration.host]
            )
        }
        logger.info(
            "reactorhub started",
            metadata: [
                "port": String(port), "host": configuration.host, "kinds": registry.names.joined(separator: ","),
                "config": file ?? "built-in defaults", "threads": String(transport.threads),
            ]
        )
        // Stopped in reverse: eviction, then the hub drains, then the server delivers what
        // is queued and closes every client with 1001, then the webhooks deliver what is
        // queued (within the grace), then the store commits and closes.
        services += (webhooks.map { [$0] } ?? []) + [server, hub, IdleEviction(hub: hub), OutboundBudget(hub: hub)]
        let group = ServiceGroup(
            services: services,
            shutdownSignal: {
                var received = terminations.makeAsyncIterator()
                return await received.next() ?? "cancelled"
            },
            logger: logger
        )
        do {
            try await group.run()
        } catch {
            logger.error("stopped after a failure", metadata: ["error": "\(error)"])
            return 1
        }
        logger.info("reactorhub stopped")
        return 0
    }

    /// The cluster settings: `cluster.*`, with `history.patches` and `actions.*`.
    private static func clusterOptions(_ configuration: Configuration, _ section: Configuration.Cluster) -> ClusterOptions {
        var options = ClusterOptions(nodeID: section.nodeId ?? randomNodeID())
        options.keyPrefix = section.keyPrefix
        options.lease = .milliseconds(section.leaseMs)
        options.historySize = configuration.history.patches
        let actions = configuration.actions ?? Configuration.Actions()
        options.dedupeWindow = .seconds(actions.dedupeSeconds)
        options.dedupeEntries = actions.dedupeEntries
        options.minReplicas = section.minReplicas
        return options
    }

    /// The sentinels to ask for the master (`cluster.sentinels`, `cluster.masterName`); nil
    /// when `cluster.redis` is the master. Both were checked with the configuration.
    private static func sentinelConfiguration(_ section: Configuration.Cluster) -> SentinelConfiguration? {
        guard !section.sentinels.isEmpty, let masterName = section.masterName else { return nil }
        return SentinelConfiguration(sentinels: section.sentinels.compactMap(RedisEndpoint.init(address:)), masterName: masterName)
    }

    private static func randomNodeID() -> String {
        let value = UInt64.random(in: 0...UInt64.max)
        let hex = String(value, radix: 16)
        return "n" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `reactorhub token …`: an HS256 token minted with the configured secret.
    /// `reactorhub types`: the daemon's `hello.reactors` as TypeScript declarations.
    private static func printTypes(_ request: TypesRequest) async -> Int32 {
        guard let url = WebSocketURL(request.url) else {
            printError("types: --url must be a ws:// or wss:// URL, got \"\(request.url)\"")
            return 2
        }
        do {
            let bytes = try await HelloReader.read(url: url, token: request.token, logger: Logger(label: "reactorhub-types"))
            guard case .object(let hello) = try JSONValue(parsing: bytes), case .object(let reactors)? = hello["reactors"] else {
                printError("types: the first message of \(request.url) is not a hello with reactors")
                return 1
            }
            print(KindDeclarations.render(reactors: reactors, source: request.url), terminator: "")
            return 0
        } catch let error as TypesError {
            printError("types: \(request.url): \(error.message)")
            return 1
        } catch {
            printError("types: \(request.url): \(error)")
            return 1
        }
    }

    private static func mint(_ request: TokenRequest, with configuration: Configuration) -> Int32 {
        guard let secret = configuration.auth?.hs256Secret else {
            printError("token: needs auth.hs256Secret in the configuration (or REACTORHUB_AUTH_SECRET)")
            return 2
        }
        do {
            let minter = try TokenMinter(secret: Array(secret.utf8))
            let token = try minter.mint(subject: request.sub, read: request.read, act: request.act, ttl: .seconds(request.ttlSeconds), now: Date())
            print(token)
            return 0
        } catch {
            printError("token: \(error.message)")
            return 2
        }
    }

    private static func displayHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("reactorhub: \(message)\n".utf8))
    }
}

extension Configuration {
    /// The WebSocket server's settings taken from this configuration.
    public func transportConfiguration() -> TransportConfiguration {
        var transport = TransportConfiguration()
        transport.host = host
        transport.port = port
        transport.webRoot = webRoot
        transport.serverName = "reactorhub"
        transport.maxMessageBytes = limits.maxMessageBytes
        transport.maxRequestBodyBytes = limits.maxMessageBytes
        transport.maxConnections = limits.maxConnections
        transport.maxConnectionsPerAddress = limits.maxConnectionsPerAddress
        transport.upgradesPerSecond = limits.upgradesPerSecond
        transport.tlsHandshakesPerSecond = limits.tlsHandshakesPerSecond
        transport.tlsHandshakeBurst = limits.tlsHandshakeBurst
        transport.pingIntervalSeconds = keepalive.pingSeconds
        transport.pingTimeoutSeconds = keepalive.timeoutSeconds
        transport.shutdownGrace = .milliseconds(shutdownGraceMs)
        transport.allowedOrigins = security?.allowedOrigins ?? []
        transport.allowedHosts = security?.allowedHosts ?? []
        transport.echoPath = diagnostics.echoPath
        transport.compression = (server ?? Server()).compression
        transport.threads = (server ?? Server()).serviceThreads
        return transport
    }

    /// The hub's settings taken from this configuration.
    public func hubConfiguration(serverName: String) -> HubConfiguration {
        var hub = HubConfiguration()
        hub.serverName = serverName
        hub.maxJoinsPerConnection = limits.maxJoinsPerConnection
        hub.maxMessageBytes = limits.maxMessageBytes
        hub.apiEnabled = api?.enabled ?? true
        hub.actionsPerSecond = limits.actionsPerSecond
        hub.actionBurst = limits.actionBurst
        hub.outboundQueueBytes = limits.outboundQueueBytes
        hub.historyPatches = history.patches
        hub.historyBytes = history.maxBytes
        hub.maxInstances = limits.maxInstances
        hub.idleEviction = .milliseconds(diagnostics.idleEvictionMs)
        hub.maxInstancesPerUser = limits.maxInstancesPerUser
        hub.joinsPerSecond = limits.joinsPerSecond
        hub.joinBurst = limits.joinBurst
        hub.maxMemoryBytes = limits.maxMemoryBytes ?? MemoryLimit.halfOfAvailable
        hub.maxPendingActions = limits.maxPendingActions
        hub.maxPendingActionsTotal = limits.maxPendingActionsTotal
        hub.outboundBudgetBytes = limits.outboundBudgetBytes
        hub.durableAcks = persistence.kind == .sqlite && persistence.durableAcks
        hub.shutdownGrace = .milliseconds(shutdownGraceMs)
        hub.adminToken = admin?.token
        hub.presenceMaxBytes = presence?.maxBytes ?? hub.presenceMaxBytes
        hub.presenceMaxListed = presence?.maxListed ?? hub.presenceMaxListed
        let actions = self.actions ?? Actions()
        hub.dedupeWindow = .seconds(actions.dedupeSeconds)
        hub.dedupeEntries = actions.dedupeEntries
        // Metrics are on unless a metrics section turns them off.
        hub.metricsEnabled = metrics?.enabled ?? true
        // State checksums hash with libcrypto's SHA-256 (ReactorHubAuth owns libcrypto).
        hub.checksum = StateChecksum { LibCryptoSHA256.digest($0) }
        return hub
    }
}
