#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing
import Transport

@Suite("Connection lifecycle")
struct LifecycleTests {
    @Test func clientCloseIsReportedWithItsCode() async throws {
        try await withServer { server, port, delegate in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendClose(code: 1000, reason: "bye")
            #expect(try await client.receiveClose().code == 1000)
            #expect(await delegate.waitUntil { $0.closed.count == 1 })
            #expect(delegate.closed.first?.code == .normal)
            #expect(delegate.closed.first?.reason == "bye")
            #expect(server.connectionCount == 0)
        }
    }

    @Test func clientVanishingWithoutCloseFrameIsCleanedUp() async throws {
        try await withServer { server, port, delegate in
            let client = try await WebSocketTestClient.connect(port: port)
            #expect(await delegate.waitUntil { $0.opened.count == 1 })
            await client.abort()
            #expect(await delegate.waitUntil { $0.closed.count == 1 })
            #expect(delegate.closed.first?.code == .abnormal)
            #expect(server.connectionCount == 0)
        }
    }

    @Test func silentPeerIsDroppedByTheKeepalive() async throws {
        try await withServer(configure: {
            $0.pingIntervalSeconds = 1
            $0.pingTimeoutSeconds = 2
        }) { server, port, delegate in
            let silent = try await WebSocketTestClient.connect(port: port)
            let lively = try await WebSocketTestClient.connect(port: port)
            #expect(await delegate.waitUntil { $0.opened.count == 2 })
            let silentID = delegate.opened[0].id
            // The lively client answers pings while it waits; the silent one never reads.
            let answered = Task {
                _ = try? await lively.receive(timeout: 4)
            }
            #expect(await delegate.waitUntil(timeout: .seconds(8)) { $0.closed.count == 1 })
            #expect(delegate.closed.first?.id == silentID)
            #expect(server.connectionCount == 1)
            _ = await answered.value
            _ = silent
        }
    }

    @Test func shutdownWritesQueuedMessagesThenCloses1001() async throws {
        var configuration = TransportConfiguration()
        configuration.port = 0
        configuration.webRoot = nil
        let delegate = RecordingDelegate(echo: false)
        let server = WebSocketServer(configuration: configuration)
        let port = try server.start(delegate: delegate)
        let clients = try await (0..<3).asyncMap { _ in try await WebSocketTestClient.connect(port: port) }
        #expect(await delegate.waitUntil { $0.opened.count == 3 })
        let ids = delegate.opened.map(\.id)
        for index in 0..<100 {
            server.send(OutboundMessage(text: "pending \(index)"), to: ids)
        }
        await server.shutdown(grace: .seconds(5))
        for client in clients {
            for index in 0..<100 {
                #expect(try await client.receiveText() == "pending \(index)")
            }
            #expect(try await client.receiveClose().code == 1001)
        }
        #expect(delegate.closed.count == 3)
        #expect(delegate.closed.allSatisfy { $0.code == .goingAway })
        #expect(server.connectionCount == 0)
        // The port is released.
        await #expect(throws: (any Error).self) { _ = try await WebSocketTestClient.connect(port: port, timeout: 1) }
    }

    @Test func shutdownUnderLoadDoesNotCrashAndEndsEveryConnection() async throws {
        var configuration = TransportConfiguration()
        configuration.port = 0
        configuration.webRoot = nil
        let delegate = RecordingDelegate(echo: true)
        let server = WebSocketServer(configuration: configuration)
        delegate.attach(server)
        let port = try server.start(delegate: delegate)
        let clients = try await (0..<20).asyncMap { _ in try await WebSocketTestClient.connect(port: port) }
        #expect(await delegate.waitUntil { $0.opened.count == 20 })
        let ids = delegate.opened.map(\.id)
        let flood = Task.detached {
            for index in 0..<20_000 {
                server.send(OutboundMessage(text: "flood \(index)", kind: .event(StreamID(rawValue: 1))), to: ids)
            }
        }
        for client in clients.prefix(5) {
            try? await client.send("echo me")
        }
        await server.shutdown(grace: .seconds(2))
        await flood.value
        delegate.detach()
        #expect(delegate.closed.count == 20)
        #expect(server.connectionCount == 0)
        for client in clients {
            #expect(try await client.waitForEndOfStream(timeout: 5))
        }
    }

    /// The table side of the leak check; the resident-memory side runs against a daemon
    /// process of its own in Tests/e2e/test_leak.py, where no other test shares the heap.
    @Test func twoThousandConnectCloseCyclesLeaveTheConnectionTableEmpty() async throws {
        try await withServer { server, port, delegate in
            for _ in 0..<2000 {
                let client = try await WebSocketTestClient.connect(port: port)
                try await client.send("x")
                _ = try await client.receiveText()
                try await client.sendClose()
                _ = try await client.receiveClose()
            }
            #expect(await delegate.waitUntil { $0.closed.count == 2000 })
            #expect(delegate.opened.count == 2000)
            #expect(Set(delegate.closed.map(\.id)).count == 2000)
            #expect(server.connectionCount == 0)
            #expect(server.queuedBytes(of: delegate.opened.last!.id) == nil)
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
