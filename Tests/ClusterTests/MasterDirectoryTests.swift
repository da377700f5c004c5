import Foundation
import ReactorHubRedis
import Testing
import TestSupport

/// Every link follows the master its directory names (what the sentinels name, in a
/// cluster): commands, the subscriber, and nothing at all while no master is named.
@Suite("Links follow the master")
struct MasterDirectoryTests {
    private func text(_ client: RedisClient, _ key: String) async throws -> String? {
        try await client.send(["GET", RedisArgument(key)]).text
    }

    @Test func commandsMoveToTheNamedMasterAndFailAtOnceWhileNoneIsNamed() async throws {
        let first = try await RedisFixture.start()
        let second = try await RedisFixture.start()
        let (directory, client) = first.clientFollowingTheMaster()
        try await eventually("the client connects") { client.isConnected }
        _ = try await client.send(["SET", "k", "on first"])

        directory.withdraw("failing over (test)")
        #expect(directory.target == nil)
        #expect(directory.missingReason == "failing over (test)")
        await #expect(throws: RedisError(.connection, "cluster link down: no Redis master: failing over (test)")) {
            try await client.send(["SET", "k", "nowhere"])
        }
        #expect(directory.name(second.server.endpoint))
        #expect(directory.moves == 1)
        try await eventually("the client writes to the second server") {
            (try? await client.send(["SET", "k", "on second"])) != nil
        }
        #expect(try await text(first.client, "k") == "on first")
        #expect(try await text(second.client, "k") == "on second")
        #expect(try await text(client, "k") == "on second")
        // The same name again moves nothing.
        #expect(!directory.name(second.server.endpoint))
        #expect(directory.moves == 1)
        await client.shutdown()
        await first.stop()
        await second.stop()
    }

    @Test func aCommandBlockedOnAFrozenMasterReturnsOnceTheMasterIsWithdrawn() async throws {
        let frozen = try await RedisFixture.start()
        let next = try await RedisFixture.start()
        var configuration = RedisFixture.configuration(frozen.server)
        // Only the withdrawal can end the command: its timeout is longer than the test's wait.
        configuration.commandTimeout = .seconds(600)
        // No health check either: a PING stuck in the frozen socket would hold the command
        // in the queue, and it would then meet "no Redis master" instead of the cut link.
        configuration.healthCheckInterval = .seconds(600)
        let (directory, client) = frozen.clientFollowingTheMaster(configuration)
        try await eventually("the client connects") { client.isConnected }
        // The fixture's own client checks its link every 200 ms: its PING would be bytes in
        // the frozen server's sockets too. Only the test's client talks to it while frozen.
        await frozen.client.shutdown()
        frozen.server.pause()
        let blocked = Task { () -> RedisError? in
            do throws(RedisError) {
                _ = try await client.send(["SET", "late", "1"])
                return nil
            } catch {
                return error
            }
        }
        try await eventually("the command waits in the frozen server's socket") { unreadBytes(onPort: frozen.server.port) > 0 }
        directory.withdraw("switching")
        let error = await blocked.value
        #expect(error?.isLinkFailure == true)
        #expect(error?.message.contains("no Redis master") == false)
        directory.name(next.server.endpoint)
        try await eventually("the client writes to the next master") {
            (try? await client.send(["SET", "after", "1"])) != nil
        }
        frozen.server.resume()
        let checker = try await frozen.anotherClient()
        try await eventually("the frozen server answers again") { (try? await checker.send(["PING"])) == .status("PONG") }
        #expect(try await text(checker, "after") == nil)
        await checker.shutdown()
        #expect(try await text(next.client, "after") == "1")
        await client.shutdown()
        await frozen.stop()
        await next.stop()
    }

    @Test func aReplicaIsNeverWrittenToWhateverNamesIt() async throws {
        let master = try await RedisFixture.start()
        let replica = try await RedisServer.start(replicaOf: master.server)
        let directory = MasterDirectory.fixed(replica.endpoint)
        let client = RedisClient(configuration: RedisFixture.configuration(replica), directory: directory, logger: RedisFixture.logger)
        client.start()
        let refused = try await eventuallyThrows { () async throws(RedisError) in try await client.send(["SET", "k", "v"]) }
        #expect(refused.code == .connection)
        #expect(refused.message.contains("127.0.0.1:\(replica.port) is not a master (ROLE says slave)"))
        #expect(!client.isConnected)
        directory.name(master.server.endpoint)
        try await eventually("the client writes to the master") { (try? await client.send(["SET", "k", "v"])) != nil }
        await client.shutdown()
        await replica.stop()
        await master.stop()
    }

    @Test func theSubscriberMovesAndReportsTheGap() async throws {
        let first = try await RedisFixture.start()
        let second = try await RedisFixture.start()
        let directory = MasterDirectory.fixed(first.server.endpoint)
        let events = Recorder<RedisSubscriber.Event>()
        let subscriber = RedisSubscriber(
            configuration: RedisFixture.configuration(first.server, name: "redis-subscriber"), directory: directory,
            logger: RedisFixture.logger
        ) { events.append($0) }
        subscriber.start()
        try await eventually("the subscriber connects") { subscriber.isConnected }
        try await subscriber.subscribe(["live"])
        directory.name(second.server.endpoint)
        try await eventually("it resubscribes on the second server") { events.all.contains(.resubscribed) }
        _ = try await second.client.send(["PUBLISH", "live", "from second"])
        _ = try await first.client.send(["PUBLISH", "live", "from first"])
        try await eventually("the second server's message arrives") {
            events.all.contains(.message(channel: "live", payload: Array("from second".utf8)))
        }
        let kinds = events.all.map { event -> String in
            switch event {
            case .linkDown: "down"
            case .resubscribed: "resubscribed"
            case .message(_, let payload): String(decoding: payload, as: UTF8.self)
            case .patternMessage: "pattern"
            }
        }
        #expect(kinds == ["down", "resubscribed", "from second"])
        // Asked by the delivery probe, it rebuilds its link on the same server.
        subscriber.reconnect()
        try await eventually("it resubscribes again") { events.all.filter { $0 == .resubscribed }.count == 2 }
        await subscriber.shutdown()
        await first.stop()
        await second.stop()
    }
}

/// Runs `body` until it throws, failing the test after `timeout`; returns the error.
func eventuallyThrows(
    timeout: Duration = .seconds(60),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws(RedisError) -> RedisValue
) async throws -> RedisError {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        do throws(RedisError) {
            _ = try await body()
        } catch {
            return error
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting for an error", sourceLocation: sourceLocation)
    throw TestClientError("timed out waiting for an error")
}

/// Bytes received and not yet read on the server's side of the established connections to
/// `port` (`/proc/net/tcp`'s rx_queue, read to its end: the file says its size is 0): a
/// frozen server's pending commands.
func unreadBytes(onPort port: Int) -> Int {
    guard let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() else { return 0 }
    let local = ":" + String(format: "%04X", port)
    return String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().reduce(0) { total, line in
        let fields = line.split(separator: " ")
        guard fields.count > 4, fields[1].hasSuffix(local), fields[3] == "01", let queue = fields[4].split(separator: ":").last,
              let unread = Int(queue, radix: 16) else { return total }
        return total + unread
    }
}
