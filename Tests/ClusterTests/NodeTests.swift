import ReactorHubRedis
import Testing

@Suite("Node registry, presence and inboxes")
struct NodeTests {
    @Test func liveNodesAreThoseThatKeepBeating() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.registry(cluster.options("node-a", lease: .milliseconds(400)))
        let b = cluster.registry(cluster.options("node-b"))
        try await a.heartbeat()
        try await b.heartbeat(info: Array("127.0.0.1:8080".utf8))
        let both = try await b.liveNodes()
        if both.count == 2 {
            #expect(both == ["node-a", "node-b"])
        }
        #expect(try await cluster.client.send(["GET", "rh:node:node-b"]) == .text("127.0.0.1:8080"))
        try await eventually("node-a's heartbeat lapses") { try await b.liveNodes() == ["node-b"] }
        // The key's own expiry can lag the list's deadline by a millisecond (Redis checks
        // `now > when`, the list keeps deadlines after `now`): it lapses too, just after.
        try await eventually("node-a's key lapses") { try await b.isAlive("node-a") == false }
        #expect(try await b.liveNodes() == ["node-b"])
        #expect(try await b.isAlive("node-b"))
        try await b.deregister()
        #expect(try await a.liveNodes() == [])
        #expect(try await a.isAlive("node-b") == false)
        await cluster.stop()
    }

    @Test func presenceEntriesVanishWhenTheNodesLeaseLapses() async throws {
        let cluster = try await ClusterFixture.start()
        let aOptions = cluster.options("node-a", lease: .milliseconds(500))
        let bOptions = cluster.options("node-b")
        let aRegistry = cluster.registry(aOptions)
        let bRegistry = cluster.registry(bOptions)
        let a = PresenceStore(client: cluster.client, options: aOptions, registry: aRegistry)
        let b = PresenceStore(client: cluster.client, options: bOptions, registry: bRegistry)
        try await aRegistry.heartbeat()
        try await bRegistry.heartbeat()
        try await a.set("doc/x", session: "c1", entry: Array("{\"user\":\"ann\"}".utf8))
        try await b.set("doc/x", session: "c7", entry: Array("{\"user\":\"bob\"}".utf8))
        try await b.set("doc/x", session: "c8", entry: Array("{\"user\":null}".utf8))
        let all = try await b.entries(of: "doc/x")
        #expect(all["node-b"] == ["c7": Array("{\"user\":\"bob\"}".utf8), "c8": Array("{\"user\":null}".utf8)])
        #expect(all["node-a"] == nil || all["node-a"] == ["c1": Array("{\"user\":\"ann\"}".utf8)])

        // node-a stops beating: its entries leave with its lease, node-b's stay.
        try await eventually("node-a's entries are gone") { try await b.entries(of: "doc/x")["node-a"] == nil }
        #expect(try await bRegistry.isAlive("node-a") == false)
        #expect(try await b.entries(of: "doc/x") == ["node-b": ["c7": Array("{\"user\":\"bob\"}".utf8), "c8": Array("{\"user\":null}".utf8)]])
        #expect(try await cluster.client.send(["SMEMBERS", "rh:{doc/x}:presence:nodes"]) == .array([.text("node-b")]))

        try await b.remove("doc/x", session: "c7")
        #expect(try await b.entries(of: "doc/x") == ["node-b": ["c8": Array("{\"user\":null}".utf8)]])
        try await b.remove("doc/x", session: "c8")
        #expect(try await b.entries(of: "doc/x") == [:])
        await cluster.stop()
    }

    @Test func theHeartbeatKeepsPresenceAlive() async throws {
        let cluster = try await ClusterFixture.start()
        let options = cluster.options("node-a")
        let registry = cluster.registry(options)
        let presence = PresenceStore(client: cluster.client, options: options, registry: registry)
        try await presence.set("doc/x", session: "c1", entry: Array("{}".utf8))
        _ = try await cluster.client.send(["PEXPIRE", "rh:{doc/x}:presence:node-a", 15_000])
        try await registry.heartbeat()
        #expect(try await cluster.client.send(["PTTL", "rh:{doc/x}:presence:node-a"]).integer ?? 0 > 16_000)
        // Once its last entry is removed, the heartbeat no longer touches the key.
        try await presence.remove("doc/x", session: "c1")
        try await registry.heartbeat()
        #expect(try await cluster.client.send(["EXISTS", "rh:{doc/x}:presence:node-a"]) == .integer(0))
        await cluster.stop()
    }

    @Test func forwardedActionsReachTheOwnersInboxInOrder() async throws {
        let cluster = try await ClusterFixture.start()
        let owner = cluster.options("node-b")
        try await cluster.registry(owner).heartbeat()
        let origin = NodeInbox(client: cluster.client, options: cluster.options("node-a"))
        // Posted before the reader starts: still delivered.
        #expect(try await origin.post(to: "node-b", instance: "counter/x", payload: [0]))
        let received = Recorder<InboxEntry>()
        let reader = InboxReader(
            configuration: RedisFixture.configuration(cluster.redis.server),
            options: owner,
            logger: RedisFixture.logger,
            block: .milliseconds(200)
        ) { entries in
            for entry in entries { received.append(entry) }
        }
        let reading = Task { await reader.run() }
        for index in 1...20 {
            #expect(try await origin.post(to: "node-b", instance: "counter/x", payload: [UInt8(index), 0xFF]))
        }
        try await eventually("every forwarded action arrived") { received.all.count == 21 }
        #expect(received.all.map(\.payload) == [[0]] + (1...20).map { [UInt8($0), 0xFF] })
        #expect(Set(received.all.map(\.from)) == ["node-a"])
        #expect(Set(received.all.map(\.instance)) == ["counter/x"])
        #expect(try await origin.post(to: "node-gone", instance: "counter/x", payload: [1]) == false)
        reading.cancel()
        await reading.value
        await cluster.stop()
    }
}
