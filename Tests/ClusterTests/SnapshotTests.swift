import ReactorHubRedis
import Testing

@Suite("Snapshots, load and new epochs")
struct SnapshotTests {
    @Test func snapshotPlusTailGiveTheLastCommittedVersion() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1), .patch(2), .patch(3)]) == .committed(version: 3))
        let at2 = InstanceSnapshot(epoch: "e1", version: 2, state: Array("{\"value\":2}".utf8))
        #expect(try await store.writeSnapshot(lease, at2) == .committed(version: 3))
        let stored = try #require(try await store.load("counter/x"))
        #expect(stored.snapshot == at2)
        #expect(stored.tail.map(\.version) == [3])
        #expect(stored.isComplete)
        // Ahead of the committed version, of another epoch, older than the kept one.
        #expect(try await store.writeSnapshot(lease, InstanceSnapshot(epoch: "e1", version: 9, state: [])) == .versionConflict(current: 3))
        #expect(try await store.writeSnapshot(lease, InstanceSnapshot(epoch: "e0", version: 1, state: [])) == .epochMismatch(current: "e1"))
        #expect(try await store.writeSnapshot(lease, InstanceSnapshot(epoch: "e1", version: 1, state: [])) == .committed(version: 3))
        #expect(try await store.snapshot(of: "counter/x") == at2)
        await cluster.stop()
    }

    @Test func aStaleOwnerCannotWriteASnapshot() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let stale = Lease(address: "counter/x", node: "node-a", generation: lease.generation - 1)
        let outcome = try await cluster.store(a).writeSnapshot(stale, InstanceSnapshot(epoch: "e1", version: 0, state: Array("fork".utf8)))
        guard case .lostLease(let holder) = outcome else {
            Issue.record("a stale token wrote a snapshot: \(outcome)")
            return
        }
        #expect(holder?.generation == lease.generation)
        #expect(try await cluster.store(a).snapshot(of: "counter/x")?.state == Array("{}".utf8))
        await cluster.stop()
    }

    @Test func redisLosingTheDataIsSeenAndANewEpochStarts() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1)]) == .committed(version: 1))

        try await cluster.redis.server.restart()
        try await eventually("the client is back") { (try? await cluster.client.send(["PING"])) == .status("PONG") }
        #expect(try await store.load("counter/x") == nil)
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 0) == .missing)
        // The lease is gone with the data: a commit under it is refused, never a fork.
        #expect(try await store.commit(lease, epoch: "e1", expected: 1, entries: [.patch(2)]) == .lostLease(holder: nil))

        let again = try await cluster.own("counter/x", a)
        #expect(try await store.commit(again, epoch: "e1", expected: 0, entries: [.patch(1)]) == .committed(version: 1))
        #expect(try await store.startEpoch(again, epoch: "e2", version: 0, state: Array("{\"value\":1}".utf8)) == .committed(version: 0))
        let stored = try #require(try await store.load("counter/x"))
        #expect(stored.epoch == "e2")
        #expect(stored.version == 0)
        #expect(stored.tail.isEmpty)
        #expect(stored.snapshot?.state == Array("{\"value\":1}".utf8))
        await cluster.stop()
    }

    @Test func aMissingMetaIsReportedToTheCommitter() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        _ = try await cluster.client.send(["DEL", "rh:{counter/x}:meta"])
        #expect(try await cluster.store(a).commit(lease, epoch: "e1", expected: 0, entries: [.patch(1)]) == .instanceMissing)
        #expect(try await cluster.store(a).load("counter/x") == nil)
        await cluster.stop()
    }

    @Test func aTailThatDoesNotReachTheVersionIsIncomplete() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a", history: 2)
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        for version in 1...5 {
            #expect(try await store.commit(lease, epoch: "e1", expected: version - 1, entries: [.patch(version)]) == .committed(version: version))
        }
        // The snapshot (version 0) is older than the kept history (4, 5).
        let stored = try #require(try await store.load("counter/x"))
        #expect(stored.tail.map(\.version) == [4, 5])
        #expect(!stored.isComplete)
        await cluster.stop()
    }
}
