import ReactorHubProtocol
import TestSupport
import Testing
@testable import ReactorHubWebSocketServer

/// `server.threads`: one lws context per service thread; the first listens and hands each
/// accepted socket to the thread holding the fewest; the caps hold for the whole server.
@Suite("Several service threads")
struct ServiceThreadsTests {
    @Test func identifiersNameTheirThread() {
        // Thread k of 4 numbers its connections k+1, k+5, k+9…
        let ids = (1...12).map { ConnectionID(rawValue: UInt64($0)) }
        #expect(ids.map { ServerCore.thread(of: $0, among: 4) } == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])
        #expect(ids.map { ServerCore.thread(of: $0, among: 1) } == [Int](repeating: 0, count: 12))
    }

    @Test func connectionsAreSpreadEvenlyAndABroadcastReachesEveryThreadByteForByte() async throws {
        try await withServer(echo: false, configure: { $0.threads = 4; $0.compression = false }) { server, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<40 {
                clients.append(try await WebSocketTestClient.connect(port: port, timeout: 60))
            }
            #expect(await handler.waitUntil { $0.opened.count == 40 })
            // Each socket went to the thread with the fewest at its accept: ten each.
            #expect(server.socketsPerThread == [10, 10, 10, 10])
            let ids = handler.opened.map(\.id)
            #expect(Set(ids).count == 40)
            #expect(Set(ids.map { ServerCore.thread(of: $0, among: 4) }) == [0, 1, 2, 3])
            // One message object per payload, written by four threads to their connections:
            // small ones (batched per thread), medium ones and one past 64 KiB.
            let payloads = (0..<24).map { index in
                String(repeating: "t\(index)-✓", count: index == 23 ? 20_000 : index * 53 + 1)
            }
            for payload in payloads {
                handler.send(OutboundMessage(text: payload), to: ids)
            }
            let received = try await receiveAll(payloads.count, from: clients)
            #expect(received == [[String]](repeating: payloads, count: 40))
        }
    }

    @Test func eachConnectionsMessagesArriveInOrderOnItsThread() async throws {
        try await withServer(configure: { $0.threads = 3 }) { _, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<6 {
                clients.append(try await WebSocketTestClient.connect(port: port, timeout: 60))
            }
            try await withThrowingTaskGroup(of: [String].self) { group in
                for (number, client) in clients.enumerated() {
                    group.addTask {
                        var echoed: [String] = []
                        for index in 0..<50 {
                            try await client.send("\(number):\(index)")
                            echoed.append(try await client.receiveText(timeout: 60))
                        }
                        return echoed
                    }
                }
                var all: [[String]] = []
                for try await echoed in group { all.append(echoed) }
                #expect(all.count == 6)
                for echoed in all {
                    let number = echoed.first?.split(separator: ":").first.map(String.init) ?? "?"
                    #expect(echoed == (0..<50).map { "\(number):\($0)" })
                }
            }
            #expect(handler.messageCount == 300)
        }
    }

    @Test func thePerAddressCapHoldsAcrossThreads() async throws {
        try await withServer(configure: { $0.threads = 4; $0.maxConnectionsPerAddress = 6 }) { server, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<6 {
                clients.append(try await WebSocketTestClient.connect(port: port, timeout: 60))
            }
            #expect(await handler.waitUntil { $0.opened.count == 6 })
            // The seventh socket from 127.0.0.1 is closed at accept: no answer at all.
            let refused = try? await WebSocketTestClient.attempt(port: port, timeout: 60)
            #expect(refused?.responseStatus != 101)
            #expect(server.socketsPerThread.reduce(0, +) == 6)
            // One leaving (on whichever thread) frees a place for the next.
            try await clients[1].sendClose()
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(await handler.waitUntil { _ in server.socketsPerThread.reduce(0, +) == 5 })
            let admitted = try await WebSocketTestClient.connect(port: port, timeout: 60)
            #expect(admitted.responseStatus == 101)
        }
    }

    @Test func maxConnectionsCountsEveryThread() async throws {
        try await withServer(configure: { $0.threads = 4; $0.maxConnections = 5 }) { server, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<5 {
                clients.append(try await WebSocketTestClient.connect(port: port, timeout: 60))
            }
            #expect(await handler.waitUntil { $0.opened.count == 5 })
            let refused = try await WebSocketTestClient.attempt(port: port, timeout: 60)
            #expect(refused.responseStatus == 503)
            #expect(server.connectionCount == 5)
        }
    }

    @Test func shutdownClosesTheConnectionsOfEveryThreadWith1001() async throws {
        let (server, port, handler) = try startedServer(echo: false) { $0.threads = 3 }
        var clients: [WebSocketTestClient] = []
        for _ in 0..<9 {
            clients.append(try await WebSocketTestClient.connect(port: port, timeout: 60))
        }
        #expect(await handler.waitUntil { $0.opened.count == 9 })
        #expect(server.socketsPerThread == [3, 3, 3])
        await server.shutdown(code: .goingAway, reason: "server shutting down", grace: .seconds(30))
        for client in clients {
            #expect(try await client.receiveClose(timeout: 60).code == 1001)
        }
        #expect(handler.closed.count == 9)
        #expect(handler.closed.allSatisfy { $0.code == .goingAway })
        handler.detach()
    }
}
