import ReactorHubRedis
import Testing

/// A test's own Redis plus helpers to build the primitives of several nodes on it.
struct ClusterFixture {
    let redis: RedisFixture

    static func start() async throws -> ClusterFixture {
        ClusterFixture(redis: try await RedisFixture.start())
    }

    var client: RedisClient { redis.client }

    func options(_ node: String, lease: Duration = .seconds(30), history: Int = 256) -> ClusterOptions {
        var options = ClusterOptions(nodeID: node)
        options.lease = lease
        options.historySize = history
        return options
    }

    func leases(_ options: ClusterOptions) -> InstanceLeases {
        InstanceLeases(client: client, options: options, logger: RedisFixture.logger)
    }

    func store(_ options: ClusterOptions) -> InstanceStore {
        InstanceStore(client: client, options: options, logger: RedisFixture.logger)
    }

    func registry(_ options: ClusterOptions) -> NodeRegistry {
        NodeRegistry(client: client, options: options, logger: RedisFixture.logger)
    }

    /// Takes `address` for `options`' node and starts epoch `e1` at version 0 with `{}`.
    func own(_ address: String, _ options: ClusterOptions) async throws -> Lease {
        guard case .acquired(let lease) = try await leases(options).acquire(address) else {
            Issue.record("\(address) was not free")
            throw RedisError(.unexpectedReply, "not free")
        }
        #expect(try await store(options).startEpoch(lease, epoch: "e1", version: 0, state: Array("{}".utf8)) == .committed(version: 0))
        return lease
    }

    /// Waits until `options`' node takes `address` (after the holder's lease lapsed).
    func takeOver(_ address: String, _ options: ClusterOptions) async throws -> Lease {
        var taken: Lease?
        try await eventually("\(options.nodeID) takes \(address)") {
            if case .acquired(let lease) = try await leases(options).acquire(address) {
                taken = lease
            }
            return taken != nil
        }
        return try #require(taken)
    }

    /// The server's history line, as the scripts read it: the first 16 hex digits of its
    /// replication id.
    func line() async throws -> String {
        try await Self.line(of: client)
    }

    static func line(of client: RedisClient) async throws -> String {
        let info = try #require(try await client.send(["INFO", "replication"]).text)
        let id = try #require(info.split(separator: "\r\n").first { $0.hasPrefix("master_replid:") })
        return String(id.dropFirst("master_replid:".count).prefix(16))
    }

    func stop() async {
        await redis.stop()
    }
}

/// A patch frame as the hub would send it, with bytes that must survive unchanged.
func patchFrame(_ version: Int) -> [UInt8] {
    Array("{\"type\":\"patch\",\"reactor\":\"counter/a\",\"version\":\(version),\"patch\":[\"é\"]}".utf8) + [0x00, 0xFF]
}

extension CommitEntry {
    static func patch(_ version: Int) -> CommitEntry {
        CommitEntry(version: version, patch: patchFrame(version))
    }
}
