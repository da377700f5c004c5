import ReactorHubRedis
import Testing
import TestSupport

@Suite("RedisClient against a real redis-server")
struct RedisClientTests {
    @Test func aPortServedByAnotherRedisServerIsNotTakenForTheTestsOwn() async throws {
        // Two tests can be handed the same free port; the second server then cannot bind,
        // and must not take the first one's answers for its own.
        let first = try await RedisServer.start()
        let second = try await RedisServer.start(firstPort: first.port)
        #expect(second.port != first.port)
        #expect(first.answeringProcessID() == first.processID)
        #expect(second.answeringProcessID() == second.processID)
        #expect(first.processID != nil && first.processID != second.processID)
        await second.stop()
        await first.stop()
    }

    @Test func commandsRoundTripBinarySafeBytes() async throws {
        let redis = try await RedisFixture.start()
        let key: [UInt8] = [0x6B, 0x00, 0xFF, 0x7B]
        let value: [UInt8] = [0x00, 0xFF, 0x80, 0x0A, 0x0D, 0x00, 0xC3, 0x28]
        #expect(try await redis.client.send(["SET", .bytes(key), .bytes(value)]) == .status("OK"))
        #expect(try await redis.client.send(["GET", .bytes(key)]) == .string(value))
        #expect(try await redis.client.send(["SET", "empty", .bytes([])]) == .status("OK"))
        #expect(try await redis.client.send(["GET", "empty"]) == .string([]))
        #expect(try await redis.client.send(["GET", "missing"]) == .null)
        #expect(try await redis.client.send(["STRLEN", .bytes(key)]) == .integer(Int64(value.count)))
        await redis.stop()
    }

    @Test func replyTreesKeepArraysNilsAndIntegers() async throws {
        let redis = try await RedisFixture.start()
        _ = try await redis.client.send(["RPUSH", "list", "a", .bytes([0]), "c"])
        #expect(try await redis.client.send(["LRANGE", "list", 0, -1]) == .array([.text("a"), .string([0]), .text("c")]))
        _ = try await redis.client.send(["SET", "one", 1])
        #expect(try await redis.client.send(["MGET", "one", "nothing"]) == .array([.text("1"), .null]))
        #expect(try await redis.client.send(["INCRBY", "one", 41]) == .integer(42))
        await redis.stop()
    }

    @Test func pipelineAnswersInOrderWithErrorsInPlace() async throws {
        let redis = try await RedisFixture.start()
        let replies = try await redis.client.pipeline([
            ["INCR", "n"], ["INCR", "n"], ["SET", "s", "text"], ["INCR", "s"], ["GET", "n"],
        ])
        #expect(replies.count == 5)
        #expect(replies[0] == .integer(1))
        #expect(replies[1] == .integer(2))
        #expect(replies[2] == .status("OK"))
        guard case .error(let error) = replies[3] else {
            Issue.record("INCR of a non-number should be an error reply, got \(replies[3])")
            return
        }
        #expect(error.code == .reply)
        #expect(error.replyPrefix == "ERR")
        #expect(replies[4] == .text("2"))
        await redis.stop()
    }

    @Test func errorRepliesBecomeRedisErrors() async throws {
        let redis = try await RedisFixture.start()
        _ = try await redis.client.send(["SET", "s", "x"])
        let wrongType = await #expect(throws: RedisError.self) {
            try await redis.client.send(["LPUSH", "s", "y"])
        }
        #expect(wrongType?.code == .reply)
        #expect(wrongType?.replyPrefix == "WRONGTYPE")
        let unknown = await #expect(throws: RedisError.self) {
            try await redis.client.send(["NOSUCHCOMMAND"])
        }
        #expect(unknown?.replyPrefix == "ERR")
        // The connection survives error replies.
        #expect(try await redis.client.send(["PING"]) == .status("PONG"))
        await redis.stop()
    }

    @Test func reconnectsAfterRestartAndReportsDownThenUp() async throws {
        let redis = try await RedisFixture.start()
        let states = Recorder<RedisLinkState>()
        let watcher = Task {
            for await state in redis.client.linkStates() {
                states.append(state)
            }
        }
        try await eventually("the watcher saw the link up") { states.all.first == .up }
        try await redis.server.restart()
        try await eventually("a command works again") {
            (try? await redis.client.send(["SET", "k", "v"])) == .status("OK")
        }
        #expect(try await redis.client.send(["GET", "k"]) == .text("v"))
        try await eventually("the watcher saw down then up") { states.all.count >= 3 }
        let seen = states.all
        #expect(seen[0] == .up)
        #expect(!seen[1].isUp)
        #expect(seen[2] == .up)
        #expect(redis.client.isConnected)
        watcher.cancel()
        await redis.stop()
    }

    @Test func commandsFailFastWhileTheServerIsDown() async throws {
        let redis = try await RedisFixture.start()
        await redis.server.kill()
        try await eventually("the client notices") { !redis.client.isConnected }
        let error = await #expect(throws: RedisError.self) {
            try await redis.client.send(["PING"])
        }
        #expect(error?.code == .connection)
        #expect(error?.isLinkFailure == true)
        try await redis.server.launch()
        try await eventually("the client is back") { redis.client.isConnected }
        #expect(try await redis.client.send(["PING"]) == .status("PONG"))
        await redis.stop()
    }

    @Test func scriptsFallBackToEvalAfterRestartOrFlush() async throws {
        let redis = try await RedisFixture.start()
        let script = RedisScript(name: "echo", source: "redis.call('SET', KEYS[1], ARGV[1]) return ARGV[1]")
        #expect(try await redis.client.run(script, keys: ["a"], arguments: ["one"]) == .text("one"))
        _ = try await redis.client.send(["SCRIPT", "FLUSH"])
        #expect(try await redis.client.run(script, keys: ["a"], arguments: ["two"]) == .text("two"))
        try await redis.server.restart()
        try await eventually("the script runs after the restart") {
            (try? await redis.client.run(script, keys: ["a"], arguments: ["three"])) == .text("three")
        }
        #expect(try await redis.client.send(["GET", "a"]) == .text("three"))
        await redis.stop()
    }

    @Test func scriptErrorsAreThrown() async throws {
        let redis = try await RedisFixture.start()
        let script = RedisScript(name: "fails", source: "return redis.error_reply('NOPE not today')")
        let error = await #expect(throws: RedisError.self) {
            try await redis.client.run(script, keys: [], arguments: [])
        }
        #expect(error?.replyPrefix == "NOPE")
        await redis.stop()
    }

    @Test func afterShutdownCommandsFailAsClosed() async throws {
        let redis = try await RedisFixture.start()
        await redis.client.shutdown()
        let error = await #expect(throws: RedisError.self) {
            try await redis.client.send(["PING"])
        }
        #expect(error?.code == .closed)
        #expect(!redis.client.isConnected)
        await redis.server.stop()
    }

    @Test func parsesTheClusterRedisSetting() {
        #expect(RedisConfiguration(address: "127.0.0.1:6379")?.port == 6379)
        #expect(RedisConfiguration(address: "redis.local:7000")?.host == "redis.local")
        #expect(RedisConfiguration(address: "nohost") == nil)
        #expect(RedisConfiguration(address: ":6379") == nil)
        #expect(RedisConfiguration(address: "h:99999") == nil)
    }
}
