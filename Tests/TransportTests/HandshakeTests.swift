import TestSupport
import Testing
import ReactorHubWebSocketServer

@Suite("WebSocket handshake")
struct HandshakeTests {
    @Test func offeredSubprotocolIsSelectedAndReported() async throws {
        try await withServer(configure: { $0.allowedOrigins = ["http://example.test"] }) { _, port, handler in
            let client = try await WebSocketTestClient.connect(
                port: port, subprotocols: ["reactorhub.v1"], origin: "http://example.test"
            )
            #expect(client.responseStatus == 101)
            #expect(client.responseHeaders["sec-websocket-protocol"] == "reactorhub.v1")
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            let info = try #require(handler.opened.first)
            #expect(info.path == "/ws")
            #expect(info.subprotocol == "reactorhub.v1")
            #expect(info.origin == "http://example.test")
            #expect(info.peerAddress == "127.0.0.1")
        }
    }

    @Test func clientOfferingNoSubprotocolIsServedTheSameProtocol() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            #expect(client.responseStatus == 101)
            #expect(client.responseHeaders["sec-websocket-protocol"] == nil)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            #expect(handler.opened.first?.subprotocol == nil)
            #expect(handler.opened.first?.origin == nil)
            try await client.send("still served")
            #expect(try await client.receiveText() == "still served")
        }
    }

    @Test func subprotocolAmongSeveralIsPicked() async throws {
        try await withServer { _, port, _ in
            let client = try await WebSocketTestClient.connect(port: port, subprotocols: ["graphql-ws", "reactorhub.v1"])
            #expect(client.responseHeaders["sec-websocket-protocol"] == "reactorhub.v1")
        }
    }

    @Test func unsupportedSubprotocolIsRefusedWith400() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.attempt(port: port, subprotocols: ["mqtt"])
            #expect(client.responseStatus == 400)
            #expect(handler.opened.isEmpty)
        }
    }

    @Test func upgradeOnAnotherPathIsRefusedWith404() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.attempt(port: port, path: "/socket")
            #expect(client.responseStatusLine == "HTTP/1.1 404 Not Found")
            #expect(handler.opened.isEmpty)
        }
    }

    @Test func connectionIDsAreDistinctAndIncreasing() async throws {
        try await withServer { _, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<5 {
                clients.append(try await WebSocketTestClient.connect(port: port))
            }
            #expect(await handler.waitUntil { $0.opened.count == 5 })
            let ids = handler.opened.map(\.id)
            #expect(Set(ids).count == 5)
            #expect(ids == ids.sorted())
        }
    }
}
