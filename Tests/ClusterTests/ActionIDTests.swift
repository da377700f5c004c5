import ReactorHubRedis
import Testing

@Suite("Idempotent action ids")
struct ActionIDTests {
    @Test func theStoredReplyIsReturnedForAKnownID() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        let ack = Array("{\"type\":\"ack\",\"version\":0}".utf8)
        let entry = CommitEntry(version: 1, patch: patchFrame(1), actionID: "a-1", reply: ack)
        #expect(try await store.commit(lease, epoch: "e1", expected: 0, entries: [entry]) == .committed(version: 1))
        let error = Array("{\"type\":\"error\",\"code\":\"invalid_action\"}".utf8)
        #expect(try await store.reply(lease, epoch: "e1", reply: error, actionID: "a-2", logged: false) == .committed(version: 1))
        #expect(try await store.rememberedReply(actionID: "a-1", in: "counter/x") == ack)
        #expect(try await store.rememberedReply(actionID: "a-2", in: "counter/x") == error)
        #expect(try await store.rememberedReply(actionID: "a-3", in: "counter/x") == nil)
        #expect(try await store.rememberedReply(actionID: "a-1", in: "counter/other") == nil)
        // Not logged: no reply entry in the log.
        #expect(try await cluster.client.send(["XLEN", "rh:{counter/x}:log"]) == .integer(1))
        await cluster.stop()
    }

    @Test func idsExpireAfterTheWindow() async throws {
        let cluster = try await ClusterFixture.start()
        var a = cluster.options("node-a")
        a.dedupeWindow = .seconds(2)
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        let recorded = ContinuousClock.now
        #expect(try await store.reply(lease, epoch: "e1", reply: Array("ack".utf8), actionID: "old", logged: false) == .committed(version: 0))
        let found = try await store.rememberedReply(actionID: "old", in: "counter/x")
        if ContinuousClock.now - recorded < .seconds(1) {
            #expect(found == Array("ack".utf8))
        }
        try await eventually("the id expires") {
            try await store.rememberedReply(actionID: "old", in: "counter/x") == nil
        }
        // The next write prunes it for good.
        #expect(try await store.reply(lease, epoch: "e1", reply: Array("ack".utf8), actionID: "new", logged: false) == .committed(version: 0))
        #expect(try await cluster.client.send(["HEXISTS", "rh:{counter/x}:ids", "old"]) == .integer(0))
        #expect(try await cluster.client.send(["ZCARD", "rh:{counter/x}:ids:at"]) == .integer(1))
        await cluster.stop()
    }

    @Test func atMostTheConfiguredNumberOfIdsAreKept() async throws {
        let cluster = try await ClusterFixture.start()
        var a = cluster.options("node-a")
        a.dedupeEntries = 3
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        for version in 1...5 {
            let entry = CommitEntry(version: version, patch: patchFrame(version), actionID: "id-\(version)", reply: Array("ack \(version)".utf8))
            #expect(try await store.commit(lease, epoch: "e1", expected: version - 1, entries: [entry]) == .committed(version: version))
        }
        #expect(try await cluster.client.send(["HLEN", "rh:{counter/x}:ids"]) == .integer(3))
        #expect(try await cluster.client.send(["ZCARD", "rh:{counter/x}:ids:at"]) == .integer(3))
        for version in 1...5 {
            let reply = try await store.rememberedReply(actionID: "id-\(version)", in: "counter/x")
            #expect(reply == (version > 2 ? Array("ack \(version)".utf8) : nil), "id-\(version)")
        }
        await cluster.stop()
    }

    @Test func aNewOwnerReadsBackEveryRememberedIDInRecordingOrder() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let lease = try await cluster.own("counter/x", a)
        let store = cluster.store(a)
        for version in 1...3 {
            let entry = CommitEntry(version: version, patch: patchFrame(version), actionID: "id-\(version)", reply: Array("ack \(version)".utf8))
            #expect(try await store.commit(lease, epoch: "e1", expected: version - 1, entries: [entry]) == .committed(version: version))
        }
        #expect(try await store.reply(lease, epoch: "e1", reply: Array("error".utf8), actionID: "refused", logged: false) == .committed(version: 3))
        let remembered = try await cluster.store(cluster.options("node-b")).rememberedIDs(in: "counter/x")
        #expect(Set(remembered.map(\.id)) == ["id-1", "id-2", "id-3", "refused"])
        #expect(remembered.first { $0.id == "id-2" }?.reply == Array("ack 2".utf8))
        #expect(remembered.first { $0.id == "refused" }?.reply == Array("error".utf8))
        #expect(remembered.allSatisfy { $0.age >= .zero && $0.age < a.dedupeWindow })
        #expect(try await store.rememberedIDs(in: "counter/none").isEmpty)
        await cluster.stop()
    }
}
