import ReactorHubEngine
import ReactorHubProtocol
import Synchronization
import TestSupport
import Testing
import ReactorHubWebSocketServer

@Suite("WebSocket messages")
struct MessagingTests {
    @Test func textRoundTripsUnchanged() async throws {
        try await withServer { _, port, _ in
            let client = try await WebSocketTestClient.connect(port: port)
            for text in ["hello", "", "{\"type\":\"ping\",\"ref\":4}", "안녕하세요 🌍 \u{2028}"] {
                try await client.send(text)
                #expect(try await client.receiveText() == text)
            }
        }
    }

    /// The handler says which message was the last one waiting: the server writes a burst
    /// (framed together when small, a large one on its own) and stops there, without a pull
    /// that finds nothing (the hub's pull is a lookup and a lock per connection).
    @Test func aBurstIsWrittenInOrderWithoutAPullThatFindsNothing() async throws {
        try await withServer(echo: false, configure: { $0.pingIntervalSeconds = 600; $0.pingTimeoutSeconds = 1200 }) { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            let id = try #require(handler.opened.first?.id)
            let bursts = [["one", "two", "three"], ["small", String(repeating: "large-✓", count: 6_000), "after"], ["alone"]]
            for burst in bursts {
                let before = handler.emptyPulls
                handler.send(burst.map { OutboundMessage(text: $0) }, to: id)
                for text in burst {
                    #expect(try await client.receiveText() == text)
                }
                #expect(handler.emptyPulls == before)
                #expect(handler.queuedBytes(of: id) == 0)
            }
        }
    }

    @Test func fragmentedMessageIsReassembledIntoOne() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            let text = String(repeating: "fragmented-다중-", count: 300)
            try await client.sendFragmented(text, parts: 7)
            #expect(try await client.receiveText() == text)
            #expect(handler.messageCount == 1)
        }
    }

    @Test func broadcastReachesFiftyClientsByteForByte() async throws {
        try await withServer(echo: false) { server, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<50 {
                clients.append(try await WebSocketTestClient.connect(port: port))
            }
            #expect(await handler.waitUntil { $0.opened.count == 50 })
            let ids = handler.opened.map(\.id)
            let payloads = (0..<20).map { index in
                String(repeating: "m\(index)-✓", count: index == 19 ? 40_000 : index * 37 + 1)
            }
            for payload in payloads {
                handler.send(OutboundMessage(text: payload), to: ids)
            }
            let received = try await receiveAll(payloads.count, from: clients, timeout: 30)
            #expect(received == [[String]](repeating: payloads, count: 50))
        }
    }

    @Test func sendsFromManyThreadsAllArriveInEachSendersOrder() async throws {
        try await withServer(echo: false) { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            let id = try #require(handler.opened.first?.id)
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<8 {
                    group.addTask {
                        for index in 0..<500 {
                            handler.send(OutboundMessage(text: "\(sender):\(index)"), to: id)
                        }
                    }
                }
            }
            var next = [Int](repeating: 0, count: 8)
            for _ in 0..<4000 {
                let parts = try await client.receiveText().split(separator: ":").map { Int($0)! }
                #expect(parts[1] == next[parts[0]])
                next[parts[0]] += 1
            }
            #expect(next == [Int](repeating: 500, count: 8))
        }
    }

    @Test func queuedBytesAreExposedPerConnection() async throws {
        try await withServer(echo: false) { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            client.setReceiveBuffer(bytes: 4096)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            let id = try #require(handler.opened.first?.id)
            #expect(handler.queuedBytes(of: id) == 0)
            let chunk = String(repeating: "x", count: 10_000)
            for _ in 0..<1500 {
                handler.send(OutboundMessage(text: chunk), to: id)
            }
            // The client reads nothing: the kernel buffers fill and the rest stays queued.
            #expect(await handler.waitUntil { _ in (handler.queuedBytes(of: id) ?? 0) > 100_000 })
            #expect(handler.queuedBytes(of: ConnectionID(rawValue: 9999)) == nil)
            _ = client
        }
    }
}

@Suite("Pulling output")
struct PullTests {
    /// A client that stops reading fills its socket: the server reports it choked and
    /// stops pulling, so output waits above the transport; once the client reads again,
    /// everything arrives, in order.
    @Test func aFullSocketIsReportedAndPullingResumesWhenItDrains() async throws {
        try await withServer(echo: false) { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port, receiveBuffer: 4096)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            let id = try #require(handler.opened.first?.id)
            let chunk = String(repeating: "y", count: 8_000)
            for index in 0..<400 {
                handler.send(OutboundMessage(text: "\(index):" + chunk), to: id)
            }
            #expect(await handler.waitUntil { $0.chokes > 0 })
            #expect(await handler.waitUntil { _ in (handler.queuedBytes(of: id) ?? 0) > 100_000 })
            for index in 0..<400 {
                #expect(try await client.receiveText(timeout: 20) == "\(index):" + chunk)
            }
            #expect(handler.queuedBytes(of: id) == 0)
        }
    }
}
