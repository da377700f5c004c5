import ReactorHubRedis
import Testing
import TestSupport

/// Delivery proves itself (`DeliveryProbe`): publishes that succeed while nothing comes back
/// make delivery silent, once, until a probe published after that comes back.
@Suite("Delivery proves itself")
struct DeliveryProbeTests {
    @Test func publishesThatNeverComeBackMakeDeliverySilentUntilOneDoes() async throws {
        let heard = try await RedisFixture.start()
        let elsewhere = try await RedisFixture.start()
        // The publisher's link goes to a server the subscriber does not listen to: every
        // PUBLISH succeeds and nothing is delivered, as after a failover that left one link
        // behind.
        let (directory, publisher) = elsewhere.clientFollowingTheMaster()
        let probe = DeliveryProbe(
            channel: "rh:probe:n1", client: publisher, interval: .milliseconds(50), patience: .milliseconds(300), logger: RedisFixture.logger
        )
        let subscriber = RedisSubscriber(configuration: RedisFixture.configuration(heard.server), logger: RedisFixture.logger) { event in
            if case .message("rh:probe:n1", let payload) = event { probe.received(payload) }
        }
        subscriber.start()
        try await eventually("both links are up") { publisher.isConnected && subscriber.isConnected }
        try await subscriber.subscribe(["rh:probe:n1"])
        let silences = Recorder<ContinuousClock.Instant>()
        let running = Task { await probe.run { silences.append(.now) } }

        try await eventually("delivery is found silent") { probe.silentReason != nil }
        #expect(probe.silentReason?.hasPrefix("cluster delivery silent: a probe on rh:probe:n1 did not come back") == true)
        #expect(silences.all.count == 1)
        #expect(try await elsewhere.client.send(["PUBSUB", "NUMSUB", "rh:probe:n1"]) == .array([.text("rh:probe:n1"), .integer(0)]))

        // The links are rebuilt where the subscriber listens: the next probes come back.
        directory.name(heard.server.endpoint)
        try await eventually("delivery is proven again") { probe.silentReason == nil }
        #expect(silences.all.count == 1)

        running.cancel()
        await running.value
        await subscriber.shutdown()
        await publisher.shutdown()
        await heard.stop()
        await elsewhere.stop()
    }
}
