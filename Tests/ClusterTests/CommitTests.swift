import ReactorHubRedis
import Testing

@Suite("Commits by Lua script, history and snapshots")
struct CommitTests {
    @Test func commitSucceedsWithTheLeaseAndTheExpectedVersion() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1)]) == .committed(version: 1))
        #expect(try await cluster.client.send(["HGET", "rh:{counter/x}:meta", "version"]) == .text("1"))
        let stored = try #require(try await store.load("counter/x"))
        #expect(stored.epoch == "e1")
        #expect(stored.version == 1)
        #expect(stored.snapshot == InstanceSnapshot(epoch: "e1", version: 0, state: Array("{}".utf8)))
        #expect(stored.tail.map(\.patch) == [patchFrame(1)])
        #expect(stored.tail.map(\.position) == [LogPosition(version: 1, sequence: 0)])
        #expect(stored.isComplete)
        await cluster.stop()
    }

    @Test func aStaleVersionIsRefusedWithTheCurrentOne() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1)]) == .committed(version: 1))
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1)]) == .versionConflict(current: 1))
        #expect(try await store.commit(lease, epoch: "e1", expected: 5, entries: [.patch(6)]) == .versionConflict(current: 1))
        #expect(try await store.commit(lease, epoch: "e0", expected: 1, entries: [.patch(2)]) == .epochMismatch(current: "e1"))
        #expect(try await cluster.client.send(["XLEN", "rh:{counter/x}:log"]) == .integer(1))
        for broken in [[CommitEntry.patch(3), .patch(2)], [.patch(2), .patch(4)], [CommitEntry(version: 5, patch: [], base: 2)]] {
            let error = await #expect(throws: RedisError.self) {
                try await store.commit(lease, epoch: "e1", expected: 1, entries: broken)
            }
            #expect(error?.replyPrefix == "ERR")
        }
        #expect(try await cluster.client.send(["XLEN", "rh:{counter/x}:log"]) == .integer(1))
        #expect(try await store.load("counter/x")?.version == 1)
        await cluster.stop()
    }

    @Test func aStaleGenerationIsRefusedAfterATakeover() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let b = cluster.options("node-b")
        let old = try await cluster.own("counter/x", a)
        #expect(try await cluster.store(a).commit(old, epoch: "e1", expected: 0, entries: [.patch(1)]) == .committed(version: 1))
        // node-a stalls past its lease (made to lapse now rather than waited for).
        _ = try await cluster.client.send(["PEXPIRE", "rh:{counter/x}:lease", 1])
        let new = try await cluster.takeOver("counter/x", b)
        #expect(new.generation > old.generation)

        // The old owner wakes up and tries to commit version 2: refused, nothing written.
        let stale = try await cluster.store(a).commit(old, epoch: "e1", expected: 1, entries: [CommitEntry(version: 2, patch: Array("fork".utf8))])
        guard case .lostLease(let holder) = stale else {
            Issue.record("a stale owner committed: \(stale)")
            return
        }
        #expect(holder?.node == "node-b")
        #expect(holder?.generation == new.generation)
        #expect(try await cluster.store(b).commit(new, epoch: "e1", expected: 1, entries: [.patch(2)]) == .committed(version: 2))
        #expect(try await cluster.store(b).history(of: "counter/x", epoch: "e1", after: 0) == .held(
            try #require(try await cluster.store(b).load("counter/x")).tail
        ))
        let frames = try await cluster.store(b).load("counter/x")?.tail.map(\.patch)
        #expect(frames == [patchFrame(1), patchFrame(2)])
        await cluster.stop()
    }

    @Test func severalVersionsCommitInOneCall() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1), .patch(2), .patch(3)]) == .committed(version: 3))
        let burst = CommitEntry(version: 6, patch: Array("merged 4-6".utf8), base: 3)
        #expect(try await store.commit(lease, epoch: "e1", expected: 3, entries: [burst]) == .committed(version: 6))
        guard case .held(let all) = try await store.history(of: "counter/x", epoch: "e1", after: 0) else {
            Issue.record("the history after 0 is not held")
            return
        }
        #expect(all.map(\.version) == [1, 2, 3, 6])
        #expect(all.map(\.base) == [nil, nil, nil, 3])
        #expect(all.map(\.patch) == [patchFrame(1), patchFrame(2), patchFrame(3), Array("merged 4-6".utf8)])
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 3) == .held([all[3]]))
        // A client at version 4 cannot apply a frame based on 3.
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 4) == .notHeld(epoch: "e1", version: 6))
        await cluster.stop()
    }

    @Test func logEntriesKeepExactBytesAndTheActionReply() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("doc/x", a)
        let store = cluster.store(a)
        let bytes: [UInt8] = [0x00, 0xFF, 0xFE, 0x0A, 0x22, 0xC3, 0x28, 0x00]
        let entry = CommitEntry(
            version: 1, patch: bytes, actionID: "4b1c-9e", reply: Array("{\"type\":\"ack\",\"version\":0}".utf8),
            replyTo: [0x6E, 0x00, 0x01]
        )
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [entry]) == .committed(version: 1))
        guard case .held(let entries) = try await store.history(of: "doc/x", epoch: "e1", after: 0) else {
            Issue.record("the history is not held")
            return
        }
        #expect(entries.count == 1)
        #expect(entries.first?.patch == bytes)
        #expect(entries.first?.epoch == "e1")
        #expect(entries.first?.actionID == "4b1c-9e")
        #expect(entries.first?.reply == entry.reply)
        #expect(entries.first?.replyTo == [0x6E, 0x00, 0x01])
        #expect(try await store.history(of: "doc/x", epoch: "e1", after: 1) == .held([]))
        await cluster.stop()
    }

    @Test func trimmingKeepsTheLastVersionsAndHistoryPastThemIsNotHeld() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a", history: 5)
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        for version in 1...12 {
            #expect(try await store.commit(lease, epoch: "e1", expected: version - 1, entries: [.patch(version)]) == .committed(version: version))
        }
        #expect(try await cluster.client.send(["XLEN", "rh:{counter/x}:log"]) == .integer(5))
        guard case .held(let kept) = try await store.history(of: "counter/x", epoch: "e1", after: 7) else {
            Issue.record("the last five versions are not held")
            return
        }
        #expect(kept.map(\.version) == [8, 9, 10, 11, 12])
        #expect(kept.map(\.patch) == (8...12).map(patchFrame))
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 6) == .notHeld(epoch: "e1", version: 12))
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 0) == .notHeld(epoch: "e1", version: 12))
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 12) == .held([]))
        #expect(try await store.history(of: "counter/x", epoch: "e1", after: 13) == .notHeld(epoch: "e1", version: 12))
        #expect(try await store.history(of: "counter/x", epoch: "e9", after: 11) == .notHeld(epoch: "e1", version: 12))
        await cluster.stop()
    }

    @Test func commitsArePublishedOnTheInstanceChannelInOrder() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        let messages = Recorder<RedisSubscriber.Event>()
        let subscriber = RedisSubscriber(
            configuration: RedisFixture.configuration(cluster.redis.server, name: "redis-subscriber"),
            logger: RedisFixture.logger
        ) { messages.append($0) }
        subscriber.start()
        try await eventually("the subscriber connects") { subscriber.isConnected }
        try await subscriber.subscribe([store.channel(of: "counter/x")])
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [.patch(1), .patch(2)]) == .committed(version: 2))
        #expect(try await store.reply(lease, epoch: "e1", reply: Array("error".utf8), actionID: "id-1", replyTo: Array("node-b/c4".utf8)) == .committed(version: 2))
        #expect(try await store.commit(lease, epoch: "e1", expected: 2, entries: [.patch(3)]) == .committed(version: 3))
        try await eventually("four messages arrived") { messages.all.count == 4 }
        let published = try messages.all.map { event in
            guard case .message(_, let payload) = event else { throw RedisError(.unexpectedReply, "\(event)") }
            return try LogEntry(channelMessage: payload)
        }
        let logged = try #require(try await store.entries(of: "counter/x", after: LogPosition(version: 0, sequence: 0)))
        #expect(published == logged)
        #expect(published.map(\.position.description) == ["1-0", "2-0", "2-1", "3-0"])
        #expect(published[2].isPatch == false)
        #expect(published[2].reply == Array("error".utf8))
        #expect(published[2].replyTo == Array("node-b/c4".utf8))
        #expect(try await store.entries(of: "counter/x", after: LogPosition(version: 2, sequence: 0))?.map(\.position.description) == ["2-1", "3-0"])
        await subscriber.shutdown()
        await cluster.stop()
    }
}
