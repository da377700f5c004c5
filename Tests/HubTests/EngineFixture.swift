import ReactorHubEngine
@testable import ReactorHubRedis
import ReactorHubStore
import TestSupport
import Testing

/// How the engine under test keeps its log: in this process (a single daemon, a cluster
/// of one) or in a real Redis shared by `nodes` hubs. The engine suite runs every test on
/// each, so the two logs cannot drift apart again.
enum EngineMode: Sendable, CustomTestStringConvertible {
    case singleNode
    case cluster(nodes: Int)

    var testDescription: String {
        switch self {
        case .singleNode: "single node"
        case .cluster(let nodes): "cluster of \(nodes)"
        }
    }

    /// Every mode the suite runs on.
    static let all: [EngineMode] = [.singleNode, .cluster(nodes: 1), .cluster(nodes: 3)]

    var nodeCount: Int {
        if case .cluster(let nodes) = self { return nodes }
        return 1
    }
}

/// The hubs of one engine under test, each on an in-memory transport.
struct TestEngine: Sendable {
    let mode: EngineMode
    let hubs: [Hub]
    let transports: [InMemoryTransport]
    /// The cluster nodes (none for a single node).
    let clusters: [ClusterNode]

    /// Connects a client to node `node` (modulo the node count) and reads its `hello`.
    func connect(node: Int = 0) async throws -> ProtocolClient {
        try await ProtocolClient(connection: transports[node % transports.count].connect())
    }

    /// Connects an in-memory client without reading anything (for readers that stop).
    func rawClient(node: Int = 0) async throws -> InMemoryClient {
        try await transports[node % transports.count].connect()
    }

    /// The last node: in a cluster of several, not the one whose client created the instance.
    var lastNode: Int { hubs.count - 1 }
}

/// Runs `body` on an engine in `mode` with the test kinds; `configure` adjusts every hub's
/// configuration; `store` is the single node's state store.
func withEngine(
    _ mode: EngineMode,
    store: any StateStore = MemoryStateStore(),
    configure: (inout HubConfiguration) -> Void = { _ in },
    _ body: (TestEngine) async throws -> Void
) async throws {
    let configuration = testConfiguration(configure)
    var hubs: [Hub] = []
    var transports: [InMemoryTransport] = []
    var clusters: [(node: ClusterNode, running: Task<Void, any Error>)] = []
    var redis: RedisServer?
    switch mode {
    case .singleNode:
        let transport = InMemoryTransport()
        let hub = Hub(configuration: configuration, registry: testRegistry(), store: store, transport: transport, logger: testLogger)
        try hub.start()
        hubs.append(hub)
        transports.append(transport)
    case .cluster(let count):
        let server = try await RedisServer.start()
        redis = server
        let prefix = "e\(UInt32.random(in: 0...UInt32.max))"
        for index in 0..<count {
            var options = ClusterOptions(nodeID: "n\(index)")
            options.keyPrefix = prefix
            // Long enough that a loaded machine never lets a lease lapse by accident.
            options.lease = .seconds(10)
            options.historySize = configuration.historyPatches
            let node = ClusterNode(options: options, redis: RedisConfiguration(host: server.host, port: server.port), logger: testLogger)
            node.start()
            let running = Task { try await node.run() }
            #expect(await node.waitUntilConnected(timeout: .seconds(60)))
            let transport = InMemoryTransport()
            let hub = Hub(configuration: configuration, registry: testRegistry(), transport: transport, cluster: node, logger: testLogger)
            try hub.start()
            hubs.append(hub)
            transports.append(transport)
            clusters.append((node, running))
        }
    }
    func stop() async {
        for hub in hubs {
            await hub.shutdown(grace: .milliseconds(500))
        }
        for cluster in clusters {
            cluster.node.triggerGracefulShutdown()
            _ = try? await cluster.running.value
        }
        await redis?.stop()
    }
    do {
        try await body(TestEngine(mode: mode, hubs: hubs, transports: transports, clusters: clusters.map(\.node)))
    } catch {
        await stop()
        throw error
    }
    await stop()
}
