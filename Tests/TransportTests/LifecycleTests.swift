#if canImport(Glibc)
import ReactorHubProtocol
import Glibc
#endif
import Foundation
import TestSupport
import ReactorHubLocking
import Testing
import ReactorHubWebSocketServer

@Suite("Connection lifecycle")
struct LifecycleTests {
    @Test func clientCloseIsReportedWithItsCode() async throws {
        try await withServer { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendClose(code: 1000, reason: "bye")
            #expect(try await client.receiveClose().code == 1000)
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.closed.first?.code == .normal)
            #expect(handler.closed.first?.reason == "bye")
            #expect(server.connectionCount == 0)
        }
    }

    @Test func clientVanishingWithoutCloseFrameIsCleanedUp() async throws {
        try await withServer { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            await client.abort()
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.closed.first?.code == .abnormal)
            #expect(server.connectionCount == 0)
        }
    }

    @Test func silentPeerIsDroppedByTheKeepalive() async throws {
        try await withServer(configure: {
            $0.pingIntervalSeconds = 1
            // Room for the lively client to answer on a loaded machine: its reads run on a
            // dispatch queue shared with every other test.
            $0.pingTimeoutSeconds = 12
        }) { server, port, handler in
            let silent = try await WebSocketTestClient.connect(port: port)
            let lively = try await WebSocketTestClient.connect(port: port)
            #expect(await handler.waitUntil { $0.opened.count == 2 })
            let silentID = handler.opened[0].id
            // The lively client answers pings for as long as the test needs (it reads, and
            // the test client answers each ping it reads); the silent one never reads. It
            // reads on its own queue: a test task can wait longer than the timeout for a
            // thread when two `swift test` runs share two cores.
            let stop = Latch()
            let answering = Task { await lively.keepReading { stop.isOpen } }
            // Generous: the drop takes pingTimeoutSeconds, more on a loaded machine.
            #expect(await handler.waitUntil(timeout: .seconds(30)) { $0.closed.count >= 1 })
            #expect(handler.closed.map(\.id) == [silentID])
            #expect(server.connectionCount == 1)
            stop.open()
            await answering.value
            _ = silent
        }
    }

    /// Messages queued one at a time for a peer that reads nothing: once its socket is
    /// full the server says so, and later messages stay with the handler. The server writes
    /// from its inbox without waiting for a writable callback, but not while lws holds part
    /// of a write back, so the backlog is where the slow-reader policy sees it (a first
    /// version moved each message into lws' own buffer, without bound, and never reported
    /// the socket full: no 1013 came for a flooding reader that read nothing).
    @Test func aSocketFilledOneMessageAtATimeIsReportedFullAndKeepsTheRestQueued() async throws {
        try await withServer(echo: false, configure: { $0.pingIntervalSeconds = 600; $0.pingTimeoutSeconds = 1200 }) { server, port, handler in
            let silent = try await WebSocketTestClient.connect(port: port, receiveBuffer: 4096)
            let barrier = try await WebSocketTestClient.connect(port: port)
            #expect(await handler.waitUntil { $0.opened.count == 2 })
            let ids = handler.opened.map(\.id)
            let (id, barrierID) = (ids[0], ids[1])
            let chunk = String(repeating: "y", count: 1900)
            // One message per wake-up: the service thread's inbox is first in, first out, so
            // once the other connection has its message, the one before it was served.
            func sendOne(_ text: String) async throws {
                handler.send(OutboundMessage(text: text), to: id)
                handler.send(OutboundMessage(text: "barrier"), to: barrierID)
                #expect(try await barrier.receiveText() == "barrier")
            }
            var sent = 0
            while handler.chokes == 0 && sent < 10_000 {   // 19 MB: past any socket buffer here
                try await sendOne("\(sent): " + chunk)
                sent += 1
            }
            #expect(handler.chokes > 0)
            let before = try #require(handler.queuedBytes(of: id))
            for index in 0..<200 {
                try await sendOne("late \(index): " + chunk)
            }
            let after = try #require(handler.queuedBytes(of: id))
            // At most one message more may have left (the kernel's buffers may still grow).
            #expect(after >= before + 199 * 1900)
            _ = silent
        }
    }

    /// A close that drops the output (1013 for a reader too slow to keep its replies) on
    /// a peer that reads nothing: its socket is full, so the close frame never finds room.
    /// The socket is dropped after `closeFrameTimeoutSeconds`, reported with the code
    /// decided, long before the keepalive would have dropped it.
    @Test func closeOfAPeerThatReadsNothingDropsTheSocketWhenTheFrameFindsNoRoom() async throws {
        try await withServer(echo: false, configure: {
            $0.closeFrameTimeoutSeconds = 1
            $0.pingIntervalSeconds = 600
            $0.pingTimeoutSeconds = 1200
        }) { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port, receiveBuffer: 4096)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            let id = try #require(handler.opened.first?.id)
            #expect(await fillUntilChoked(handler, id))
            // For a moment after the first choke the kernel still finds room (the socket's
            // buffers grow); once no writable callback came for a second, it has none.
            var chokes = handler.chokes
            for _ in 0..<30 {
                try await Task.sleep(for: .seconds(1))
                if handler.chokes == chokes { break }
                chokes = handler.chokes
            }
            server.close(id, code: .tryAgainLater, reason: "too slow to keep up", afterFlush: false)
            // Generous for a loaded machine; the keepalive would take 20 minutes.
            #expect(await handler.waitUntil(timeout: .seconds(60)) { $0.closed.count == 1 })
            #expect(handler.closed.first?.code == .tryAgainLater)
            #expect(handler.closed.first?.reason.hasPrefix("too slow to keep up") == true)
            #expect(server.connectionCount == 0)
            _ = client
        }
    }

    @Test func shutdownWritesQueuedMessagesThenCloses1001() async throws {
        var configuration = TransportConfiguration()
        configuration.port = 0
        configuration.webRoot = nil
        let handler = RecordingHandler(echo: false)
        let server = WebSocketServer(configuration: configuration, logger: transportTestLogger)
        let port = try server.start(handler: handler)
        let clients = try await (0..<3).asyncMap { _ in try await WebSocketTestClient.connect(port: port) }
        #expect(await handler.waitUntil { $0.opened.count == 3 })
        let ids = handler.opened.map(\.id)
        for index in 0..<100 {
            handler.send(OutboundMessage(text: "pending \(index)"), to: ids)
        }
        await server.shutdown(code: .goingAway, reason: "server shutting down", grace: .seconds(5))
        for client in clients {
            for index in 0..<100 {
                #expect(try await client.receiveText() == "pending \(index)")
            }
            #expect(try await client.receiveClose().code == 1001)
        }
        #expect(handler.closed.count == 3)
        #expect(handler.closed.allSatisfy { $0.code == .goingAway })
        #expect(server.connectionCount == 0)
        // The port is released.
        await #expect(throws: (any Error).self) { _ = try await WebSocketTestClient.connect(port: port, timeout: 1) }
    }

    /// The server's context runs on libuv unless REACTORHUB_LWS_EVENT_LOOP=poll (both are
    /// tested in processes of their own: Tests/e2e/test_event_loop.py); its stop path ends
    /// the loop: a shutdown with connections open closes them with 1001, ends the service
    /// thread (`shutdown` returns only then) and releases the port.
    @Test func serverRunsOnLibUVUnlessToldAndItsShutdownEndsTheLoop() async throws {
        let (server, port, handler) = try startedServer(echo: true)
        let asked = ProcessInfo.processInfo.environment["REACTORHUB_LWS_EVENT_LOOP"]
        #expect(server.eventLoop == (asked == "poll" ? "poll" : "libuv"))
        let clients = try await (0..<3).asyncMap { _ in try await WebSocketTestClient.connect(port: port) }
        #expect(await handler.waitUntil { $0.opened.count == 3 })
        for client in clients {
            try await client.send("echo me")
            #expect(try await client.receiveText() == "echo me")
        }
        await server.shutdown(code: .goingAway, reason: "server shutting down", grace: .seconds(5))
        handler.detach()
        for client in clients {
            #expect(try await client.receiveClose().code == 1001)
        }
        #expect(handler.closed.count == 3)
        #expect(server.connectionCount == 0)
        await #expect(throws: (any Error).self) { _ = try await WebSocketTestClient.connect(port: port, timeout: 1) }
    }

    /// A peer that reads nothing keeps its connection open past the grace and the close
    /// frame's timeout: the context is destroyed with it still open (lws closes its libuv
    /// handle asynchronously, on the loop run to the end), and the thread still ends.
    @Test func shutdownWithAConnectionStillOpenEndsTheLoopAndDropsIt() async throws {
        let (server, port, handler) = try startedServer(echo: false) { $0.closeFrameTimeoutSeconds = 600 }
        defer { handler.detach() }
        let client = try await WebSocketTestClient.connect(port: port, receiveBuffer: 4096)
        #expect(await handler.waitUntil { $0.opened.count == 1 })
        let id = try #require(handler.opened.first?.id)
        #expect(await fillUntilChoked(handler, id))
        // `shutdown` returns once the service thread has ended (no duration is asserted: the
        // test command would wait for a hang and report it).
        await server.shutdown(code: .goingAway, reason: "server shutting down", grace: .milliseconds(300))
        #expect(handler.closed.count == 1)
        #expect(server.connectionCount == 0)
        #expect(try await client.waitForEndOfStream(timeout: 30))
        await #expect(throws: (any Error).self) { _ = try await WebSocketTestClient.connect(port: port, timeout: 1) }
    }

    @Test func shutdownUnderLoadDoesNotCrashAndEndsEveryConnection() async throws {
        var configuration = TransportConfiguration()
        configuration.port = 0
        configuration.webRoot = nil
        let handler = RecordingHandler(echo: true)
        let server = WebSocketServer(configuration: configuration, logger: transportTestLogger)
        handler.attach(server)
        let port = try server.start(handler: handler)
        let clients = try await (0..<20).asyncMap { _ in try await WebSocketTestClient.connect(port: port) }
        #expect(await handler.waitUntil { $0.opened.count == 20 })
        let ids = handler.opened.map(\.id)
        let flood = Task.detached {
            for index in 0..<20_000 {
                handler.send(OutboundMessage(text: "flood \(index)"), to: ids)
            }
        }
        for client in clients.prefix(5) {
            try? await client.send("echo me")
        }
        await server.shutdown(code: .goingAway, reason: "server shutting down", grace: .seconds(2))
        await flood.value
        handler.detach()
        #expect(handler.closed.count == 20)
        #expect(server.connectionCount == 0)
        for client in clients {
            #expect(try await client.waitForEndOfStream(timeout: 5))
        }
    }

    /// The table side of the leak check; the resident-memory side runs against a daemon
    /// process of its own in Tests/e2e/test_leak.py, where no other test shares the heap.
    @Test func twoThousandConnectCloseCyclesLeaveTheConnectionTableEmpty() async throws {
        // as fast as they go: past the default cap on upgrades per second (1000)
        try await withServer(configure: { $0.upgradesPerSecond = 1_000_000 }) { server, port, handler in
            for _ in 0..<2000 {
                let client = try await WebSocketTestClient.connect(port: port)
                try await client.send("x")
                _ = try await client.receiveText()
                try await client.sendClose()
                _ = try await client.receiveClose()
            }
            #expect(await handler.waitUntil { $0.closed.count == 2000 })
            #expect(handler.opened.count == 2000)
            #expect(Set(handler.closed.map(\.id)).count == 2000)
            #expect(server.connectionCount == 0)
            #expect(handler.queuedBytes(of: handler.opened.last!.id) == nil)
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self {
            results.append(try await transform(element))
        }
        return results
    }
}
