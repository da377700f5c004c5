import ReactorHubRedis
import Testing
import TestSupport

@Suite("Links to a server that stopped answering")
struct StalledServerTests {
    @Test func aStalledServerIsReportedDownAndRecoveredAfterItWakes() async throws {
        let server = try await RedisServer.start()
        var configuration = RedisFixture.configuration(server, name: "redis-subscriber")
        configuration.commandTimeout = .seconds(1)
        configuration.connectTimeout = .seconds(1)
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = RedisSubscriber(configuration: configuration, logger: RedisFixture.logger) { events.append($0) }
        let client = RedisClient(configuration: configuration, logger: RedisFixture.logger)
        subscriber.start()
        client.start()
        try await eventually("both connect") { subscriber.isConnected && client.isConnected }
        try await subscriber.subscribe(["live"])

        server.pause()
        try await eventually("the subscriber reports the stall") {
            events.all.contains { if case .linkDown = $0 { true } else { false } }
        }
        try await eventually("the client reports the stall") { !client.isConnected }
        server.resume()
        try await eventually("the subscriber resubscribes") { events.all.contains(.resubscribed) }
        try await eventually("the client publishes again") {
            (try? await client.send(["PUBLISH", "live", "after"])) != nil
        }
        try await eventually("the message arrives") {
            events.all.contains(.message(channel: "live", payload: Array("after".utf8)))
        }
        await subscriber.shutdown()
        await client.shutdown()
        await server.stop()
    }
}
