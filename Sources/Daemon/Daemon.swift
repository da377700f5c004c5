#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
public import Hub
import Lifecycle
import Logging
import Persistence
import Reactors
public import Transport

/// The `reactorhub` executable: reads the configuration, serves the shipped reactor kinds
/// and shuts down gracefully on SIGINT or SIGTERM.
public enum Daemon {
    /// The version `--version` and `hello.server` report.
    public static let version = "0.1.0"

    /// Runs the daemon; returns the process exit status (0 after a clean shutdown, 2 for a
    /// bad command line or configuration, 1 when the server cannot start).
    public static func main(arguments: [String], environment: [String: String]) async -> Int32 {
        let options: CommandLineOptions
        let configuration: Configuration
        do {
            options = try CommandLineOptions(arguments: arguments)
            switch options.mode {
            case .help:
                print(CommandLineOptions.usage, terminator: "")
                return 0
            case .version:
                print("reactorhub \(version)")
                return 0
            case .run, .printConfig:
                break
            }
            configuration = try options.effectiveConfiguration(environment: environment) { path in
                FileManager.default.contents(atPath: path).map { [UInt8]($0) }
            }
        } catch {
            printError(error.message)
            return 2
        }
        if options.mode == .printConfig {
            print(PrettyPrinter.render(configuration.json))
            return 0
        }
        return await serve(configuration)
    }

    private static func serve(_ configuration: Configuration) async -> Int32 {
        LoggingSystem.bootstrap(StandardErrorLogHandler(), level: configuration.logLevel)
        let logger = Logger(label: "reactorhub")
        let registry: ReactorRegistry
        do {
            registry = try ShippedKinds.registry(for: configuration)
        } catch {
            printError("\(error)")
            return 2
        }
        var services: [any Service] = []
        let store: any StateStore
        switch configuration.persistence.kind {
        case .memory:
            store = MemoryStateStore()
        case .sqlite:
            do {
                var options = SQLiteStateStore.Options(path: configuration.persistence.path)
                options.flushInterval = .milliseconds(configuration.persistence.flushMs)
                options.flushChanges = configuration.persistence.flushChanges
                options.fullSync = configuration.persistence.durableAcks
                let opened = try SQLiteStateStore.open(options, logger: logger)
                store = opened
                services.append(opened)
            } catch {
                printError(error.message)
                return 2
            }
        }
        let server = WebSocketServer(configuration: configuration.transportConfiguration(), logger: logger)
        let hub = Hub(
            configuration: configuration.hubConfiguration(serverName: "reactorhub/\(version)"),
            registry: registry,
            store: store,
            transport: server,
            logger: logger
        )
        let port: Int
        do {
            port = try hub.start()
        } catch {
            printError(error.message)
            return 1
        }
        print("listening on http://\(displayHost(configuration.host)):\(port)")
        fflush(nil)
        logger.info(
            "reactorhub started",
            metadata: ["port": String(port), "host": configuration.host, "kinds": registry.names.joined(separator: ",")]
        )
        // Stopped in reverse: eviction, then the hub drains, then the server delivers what
        // is queued and closes every client with 1001, then the store commits and closes.
        services += [server, hub, IdleEviction(hub: hub)]
        let group = ServiceGroup(services: services, shutdownSignal: SignalWaiter.waitForTermination, logger: logger)
        do {
            try await group.run()
        } catch {
            logger.error("stopped after a failure", metadata: ["error": "\(error)"])
            return 1
        }
        logger.info("reactorhub stopped")
        return 0
    }

    private static func displayHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    private static func printError(_ message: String) {
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
        transport.maxConnections = limits.maxConnections
        transport.pingIntervalSeconds = keepalive.pingSeconds
        transport.pingTimeoutSeconds = keepalive.timeoutSeconds
        transport.shutdownGrace = .milliseconds(shutdownGraceMs)
        return transport
    }

    /// The hub's settings taken from this configuration.
    public func hubConfiguration(serverName: String) -> HubConfiguration {
        var hub = HubConfiguration()
        hub.serverName = serverName
        hub.maxJoinsPerConnection = limits.maxJoinsPerConnection
        hub.actionsPerSecond = limits.actionsPerSecond
        hub.actionBurst = limits.actionBurst
        hub.outboundQueueBytes = limits.outboundQueueBytes
        hub.historyPatches = history.patches
        hub.durableAcks = persistence.kind == .sqlite && persistence.durableAcks
        hub.shutdownGrace = .milliseconds(shutdownGraceMs)
        return hub
    }
}
