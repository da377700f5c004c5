import ReactorHubRedis
import Testing

@Suite("RedisSubscriber against a real redis-server")
struct RedisSubscriberTests {
    private func subscriber(_ redis: RedisFixture, _ events: Recorder<RedisSubscriber.Event>) async throws -> RedisSubscriber {
        let subscriber = RedisSubscriber(
            configuration: RedisFixture.configuration(redis.server, name: "redis-subscriber"),
            logger: RedisFixture.logger
        ) { event in
            events.append(event)
        }
        subscriber.start()
        try await eventually("the subscriber connects") { subscriber.isConnected }
        return subscriber
    }

    private func payloads(_ events: [RedisSubscriber.Event], on channel: String) -> [[UInt8]] {
        events.compactMap { event in
            if case .message(channel, let payload) = event { return payload }
            return nil
        }
    }

    @Test func deliversMessagesInPublishOrder() async throws {
        let redis = try await RedisFixture.start()
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = try await subscriber(redis, events)
        try await subscriber.subscribe(["rh:{counter/a}:live", "other"])
        let sent: [[UInt8]] = (0..<200).map { [UInt8($0 % 256), 0, 0xFF] + Array("frame \($0)".utf8) }
        for payload in sent {
            _ = try await redis.client.send(["PUBLISH", "rh:{counter/a}:live", .bytes(payload)])
        }
        _ = try await redis.client.send(["PUBLISH", "other", "x"])
        try await eventually("every message arrived") { payloads(events.all, on: "other").count == 1 }
        #expect(payloads(events.all, on: "rh:{counter/a}:live") == sent)
        await subscriber.shutdown()
        await redis.stop()
    }

    @Test func patternsAndUnsubscribe() async throws {
        let redis = try await RedisFixture.start()
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = try await subscriber(redis, events)
        try await subscriber.subscribe(patterns: ["rh:*:live"])
        try await subscriber.subscribe(["plain"])
        _ = try await redis.client.send(["PUBLISH", "rh:{doc/x}:live", "p1"])
        subscriber.unsubscribe(["plain"])
        try await eventually("the pattern message arrived") {
            events.all.contains(.patternMessage(pattern: "rh:*:live", channel: "rh:{doc/x}:live", payload: Array("p1".utf8)))
        }
        try await eventually("plain is unsubscribed") {
            (try await redis.client.send(["PUBSUB", "NUMSUB", "plain"])) == .array([.text("plain"), .integer(0)])
        }
        _ = try await redis.client.send(["PUBLISH", "plain", "late"])
        _ = try await redis.client.send(["PUBLISH", "rh:{doc/x}:live", "p2"])
        try await eventually("the second pattern message arrived") {
            events.all.contains(.patternMessage(pattern: "rh:*:live", channel: "rh:{doc/x}:live", payload: Array("p2".utf8)))
        }
        #expect(payloads(events.all, on: "plain").isEmpty)
        await subscriber.shutdown()
        await redis.stop()
    }

    @Test func resubscribesAfterRestartAndReportsTheGap() async throws {
        let redis = try await RedisFixture.start()
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = try await subscriber(redis, events)
        try await subscriber.subscribe(["live"])
        _ = try await redis.client.send(["PUBLISH", "live", "before"])
        try await eventually("the first message arrived") { payloads(events.all, on: "live").count == 1 }

        try await redis.server.restart()
        try await eventually("the gap is reported") { events.all.contains(.resubscribed) }
        try await eventually("the client publishes again") {
            (try? await redis.client.send(["PUBLISH", "live", "after"])) != nil
        }
        try await eventually("the message after the gap arrived") { payloads(events.all, on: "live").count == 2 }

        let seen = events.all
        let down = try #require(seen.firstIndex { if case .linkDown = $0 { true } else { false } })
        let resubscribed = try #require(seen.firstIndex(of: .resubscribed))
        let after = try #require(seen.firstIndex(of: .message(channel: "live", payload: Array("after".utf8))))
        #expect(down < resubscribed)
        #expect(resubscribed < after)
        #expect(payloads(seen, on: "live") == [Array("before".utf8), Array("after".utf8)])
        await subscriber.shutdown()
        await redis.stop()
    }

    @Test func subscribeWhileDownThrowsAndIsKeptForReconnection() async throws {
        let redis = try await RedisFixture.start()
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = try await subscriber(redis, events)
        await redis.server.kill()
        try await eventually("the subscriber notices") { !subscriber.isConnected }
        let error = await #expect(throws: RedisError.self) {
            try await subscriber.subscribe(["later"])
        }
        #expect(error?.code == .connection)
        try await redis.server.launch()
        try await eventually("the subscription is in force") { events.all.contains(.resubscribed) }
        try await eventually("the client publishes again") {
            (try? await redis.client.send(["PUBLISH", "later", "m"])) != nil
        }
        try await eventually("the message arrived") { payloads(events.all, on: "later") == [Array("m".utf8)] }
        await subscriber.shutdown()
        await redis.stop()
    }
}
