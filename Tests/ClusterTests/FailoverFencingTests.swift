import ReactorHubRedis
import Testing
import TestSupport

/// Fencing that survives a Redis failover which lost writes (docs/cluster.md, "Fencing
/// across a Redis failover"): a replica promoted without the last commits refuses the epoch
/// they were written in, and a generation handed out again makes another token.
@Suite("Fencing across a Redis failover")
struct FailoverFencingTests {
    @Test func aPromotedReplicaThatLacksTheLastCommitsRefusesTheirEpochAndTheirTokens() async throws {
        let master = try await RedisFixture.start()
        let replica = try await RedisServer.start(replicaOf: master.server)
        let (directory, client) = master.clientFollowingTheMaster()
        try await eventually("the client connects") { client.isConnected }
        var a = ClusterOptions(nodeID: "node-a")
        a.lease = .seconds(30)
        var b = a
        b.nodeID = "node-b"
        var c = a
        c.nodeID = "node-c"
        let store = InstanceStore(client: client, options: a, logger: RedisFixture.logger)
        let leases = { (options: ClusterOptions) in InstanceLeases(client: client, options: options, logger: RedisFixture.logger) }
        let oldLine = try await ClusterFixture.line(of: client)

        guard case .acquired(let owner) = try await leases(a).acquire("doc/f") else { throw TestClientError("not free") }
        #expect(owner.line == oldLine)
        #expect(try await store.startEpoch(owner, epoch: "e1", version: 0, state: Array("{}".utf8)) == .committed(version: 0))
        #expect(try await store.commit(owner, epoch: "e1", expected: 0, entries: [.patch(1), .patch(2), .patch(3)]) == .committed(version: 3))
        try await eventually("the replica has version 3") { try await store.waitForReplicas(1, timeout: .milliseconds(200)) >= 1 }

        // The replica stops hearing (frozen, its link cut so that nothing more waits in its
        // socket); the master takes two more commits and a new generation.
        replica.pause()
        _ = try await master.client.send(["CLIENT", "KILL", "TYPE", "replica"])
        #expect(try await store.commit(owner, epoch: "e1", expected: 3, entries: [.patch(4), .patch(5)]) == .committed(version: 5))
        #expect(try await leases(a).release(owner))
        guard case .acquired(let lost) = try await leases(b).acquire("doc/f") else { throw TestClientError("not free") }
        #expect(lost.generation == owner.generation + 1)

        // The master dies; the replica is promoted without them.
        await master.server.kill()
        replica.resume()
        let promoter = RedisClient(
            configuration: RedisFixture.configuration(replica),
            directory: .fixed(replica.endpoint, expectsMaster: false), logger: RedisFixture.logger
        )
        promoter.start()
        try await eventually("the replica is promoted") { (try? await promoter.send(["REPLICAOF", "NO", "ONE"])) != nil }
        directory.name(replica.endpoint)
        try await eventually("the client reaches the new master") { (try? await client.send(["PING"])) != nil }
        let newLine = try await ClusterFixture.line(of: client)
        #expect(newLine != oldLine)

        let held = try #require(try await store.load("doc/f"))
        #expect(held.epoch == "e1")
        #expect(held.version == 3)
        #expect(held.isFromAnotherLine)
        // The former owner cannot go on with e1: neither from where it was, nor from where the
        // new master is. The lost generation's holder cannot write at all.
        #expect(try await store.commit(owner, epoch: "e1", expected: 5, entries: [.patch(6)]) == .failedOver(line: oldLine))
        #expect(try await store.commit(owner, epoch: "e1", expected: 3, entries: [.patch(4)]) == .failedOver(line: oldLine))
        #expect(try await store.reply(owner, epoch: "e1", reply: Array("ack".utf8)) == .failedOver(line: oldLine))
        let stale = try await store.commit(lost, epoch: "e1", expected: 3, entries: [.patch(4)])
        guard case .lostLease(let holder) = stale else { throw TestClientError("the lost generation wrote: \(stale)") }
        #expect(holder?.node == "node-a")
        #expect(try await store.load("doc/f")?.version == 3)

        // The same generation number handed out again is another token: the lost one stays refused.
        #expect(try await leases(a).release(owner))
        guard case .acquired(let next) = try await leases(c).acquire("doc/f") else { throw TestClientError("not free") }
        #expect(next.generation == lost.generation)
        #expect(next.line == newLine)
        #expect(next.token != lost.token)
        // A new epoch from what the new master holds, in its line; only then commits go on.
        #expect(try await store.startEpoch(next, epoch: "e2", version: 3, state: Array("{}".utf8)) == .committed(version: 3))
        #expect(try await store.commit(next, epoch: "e2", expected: 3, entries: [.patch(4)]) == .committed(version: 4))
        let later = try await store.commit(lost, epoch: "e2", expected: 4, entries: [.patch(5)])
        guard case .lostLease(let current) = later else { throw TestClientError("the lost generation wrote: \(later)") }
        #expect(current?.node == "node-c" && current?.line == newLine)
        let now = try #require(try await store.load("doc/f"))
        #expect(now.epoch == "e2")
        #expect(now.version == 4)
        #expect(!now.isFromAnotherLine)

        await promoter.shutdown()
        await client.shutdown()
        await replica.stop()
        await master.stop()
    }
}
