import ReactorHubRedis
import Foundation
import ReactorHubLocking
import ReactorHubLogging
import Testing
import TestSupport

/// A redis-server of the test's own and a started client on it, with timeouts short enough
/// that a restart is noticed quickly and long enough for a loaded 2-core machine.
struct RedisFixture {
    let server: RedisServer
    let client: RedisClient

    static let logger: Logger = {
        var logger = Logger(label: "cluster-tests")
        logger.logLevel = .error
        return logger
    }()

    static func start() async throws -> RedisFixture {
        let server = try await RedisServer.start()
        let client = RedisClient(configuration: configuration(server), logger: logger)
        client.start()
        try await eventually("the client connects") { client.isConnected }
        return RedisFixture(server: server, client: client)
    }

    static func configuration(_ server: RedisServer, name: String = "redis") -> RedisConfiguration {
        var configuration = RedisConfiguration(host: server.host, port: server.port)
        configuration.commandTimeout = .seconds(5)
        configuration.connectTimeout = .seconds(5)
        configuration.reconnectDelay = .milliseconds(20)
        configuration.maximumReconnectDelay = .milliseconds(200)
        configuration.healthCheckInterval = .milliseconds(200)
        configuration.name = name
        return configuration
    }

    /// A started client whose master is the one its directory names: this server at first
    /// (a test moves it with `name` and `withdraw`).
    func clientFollowingTheMaster(_ configuration: RedisConfiguration? = nil) -> (directory: MasterDirectory, client: RedisClient) {
        let directory = MasterDirectory.fixed(server.endpoint)
        let client = RedisClient(configuration: configuration ?? Self.configuration(server), directory: directory, logger: Self.logger)
        client.start()
        return (directory, client)
    }

    /// A second client on the same server (another node).
    func anotherClient() async throws -> RedisClient {
        let client = RedisClient(configuration: Self.configuration(server), logger: Self.logger)
        client.start()
        try await eventually("the second client connects") { client.isConnected }
        return client
    }

    func stop() async {
        await client.shutdown()
        await server.stop()
    }
}

/// Polls `condition` until it holds, failing the test after `timeout` (generous: the
/// machine is shared and loaded; nothing here assumes speed).
func eventually(
    _ what: String,
    timeout: Duration = .seconds(60),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    throw TestClientError("timed out waiting until \(what)")
}

/// Collects what a handler or stream hands over, for assertions from the test.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    func append(_ item: Element) {
        items.withLock { $0.append(item) }
    }

    var all: [Element] {
        items.withLock { $0 }
    }
}

extension RedisValue {
    static func text(_ text: String) -> RedisValue {
        .string(Array(text.utf8))
    }
}

extension RedisServer {
    /// Where the server listens.
    var endpoint: RedisEndpoint {
        RedisEndpoint(host: host, port: port)
    }
}
