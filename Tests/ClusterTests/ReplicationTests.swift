import ReactorHubRedis
import Testing
import TestSupport

/// `cluster.minReplicas`: entries written unpublished are seen (on the channel, in the
/// reads followers and resumes use) only once `WAIT` confirmed them and `confirm` published
/// them; a stopped replica holds them back.
@Suite("Commits confirmed by WAIT")
struct ReplicationTests {
    @Test func entriesWrittenUnpublishedAreSeenOnlyOnceConfirmed() async throws {
        let cluster = try await ClusterFixture.start()
        let replica = try await RedisServer.start(replicaOf: cluster.redis.server)
        let options = cluster.options("node-a")
        let writer = try await cluster.redis.anotherClient()
        let store = InstanceStore(client: cluster.client, writer: writer, options: options, logger: RedisFixture.logger)
        let lease = try await cluster.own("doc/w", options)
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = RedisSubscriber(configuration: RedisFixture.configuration(cluster.redis.server), logger: RedisFixture.logger) {
            events.append($0)
        }
        subscriber.start()
        try await eventually("the subscriber connects") { subscriber.isConnected }
        try await subscriber.subscribe([store.channel(of: "doc/w")])

        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1), .patch(2)], publish: false) == .committed(version: 2))
        let (outcome, position) = try await store.record(
            lease, epoch: "e1", reply: Array("error".utf8), actionID: "a-1", replyTo: Array("7@node-b".utf8), logged: true, publish: false
        )
        #expect(outcome == .committed(version: 2))
        #expect(position == LogPosition(version: 2, sequence: 1))
        // Written, remembered, but nobody may see it yet: not followers, not resumes.
        let written = try #require(try await store.load("doc/w"))
        #expect(written.version == 2)
        #expect(written.hasUnconfirmed)
        #expect(written.confirmed == LogPosition(version: 0, sequence: 0))
        #expect(try await store.entries(of: "doc/w", after: LogPosition(version: 0, sequence: 0)) == [])
        #expect(try await store.history(of: "doc/w", epoch: "e1", after: 0) == .held([]))
        #expect(try await store.history(of: "doc/w", epoch: "e1", after: 2) == .notHeld(epoch: "e1", version: 0))
        #expect(try await store.rememberedReply(actionID: "a-1", in: "doc/w") == Array("error".utf8))

        try await eventually("WAIT confirms one replica") { try await store.waitForReplicas(1, timeout: .milliseconds(200)) >= 1 }
        #expect(try await store.confirm(lease, epoch: "e1") == .committed(version: 2))
        try await eventually("the confirmed entries are published") { events.all.count == 3 }
        let published = try events.all.map { event throws -> LogPosition in
            guard case .message(_, let payload) = event else { throw TestClientError("not a message: \(event)") }
            return try LogEntry(channelMessage: payload).position
        }
        #expect(published == [LogPosition(version: 1, sequence: 0), LogPosition(version: 2, sequence: 0), LogPosition(version: 2, sequence: 1)])
        let confirmed = try #require(try await store.load("doc/w"))
        #expect(!confirmed.hasUnconfirmed)
        #expect(confirmed.confirmed == LogPosition(version: 2, sequence: 1))
        #expect(try await store.entries(of: "doc/w", after: LogPosition(version: 0, sequence: 0))?.map(\.position) == published)
        // Nothing more to confirm: nothing is published twice.
        #expect(try await store.confirm(lease, epoch: "e1") == .committed(version: 2))
        #expect(try await store.commit(lease, epoch: "e1", expected: 2, entries: [.patch(3)]) == .committed(version: 3))
        try await eventually("a published commit arrives at once") { events.all.count == 4 }

        await subscriber.shutdown()
        await writer.shutdown()
        await replica.stop()
        await cluster.stop()
    }

    @Test func aStoppedReplicaHoldsTheConfirmationBackUntilItIsBack() async throws {
        let cluster = try await ClusterFixture.start()
        let replica = try await RedisServer.start(replicaOf: cluster.redis.server)
        let options = cluster.options("node-a")
        let store = InstanceStore(client: cluster.client, writer: try await cluster.redis.anotherClient(), options: options, logger: RedisFixture.logger)
        let lease = try await cluster.own("doc/w", options)
        try await eventually("the replica has synchronised") { try await store.waitForReplicas(1, timeout: .milliseconds(200)) >= 1 }

        replica.pause()
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1)], publish: false) == .committed(version: 1))
        for _ in 0..<3 {
            #expect(try await store.waitForReplicas(1, timeout: .milliseconds(100)) == 0)
        }
        #expect(try await store.entries(of: "doc/w", after: LogPosition(version: 0, sequence: 0)) == [])
        replica.resume()
        try await eventually("WAIT confirms the replica has it") { try await store.waitForReplicas(1, timeout: .milliseconds(200)) >= 1 }
        #expect(try await store.confirm(lease, epoch: "e1") == .committed(version: 1))
        #expect(try await store.entries(of: "doc/w", after: LogPosition(version: 0, sequence: 0))?.map(\.version) == [1])
        await replica.stop()
        await cluster.stop()
    }
}
