import TestSupport
import Testing
import ReactorHubWebSocketServer

@Suite("Inbound limits")
struct LimitsTests {
    @Test func messageOfExactlyMaxBytesIsAccepted() async throws {
        try await withServer { server, port, _ in
            let client = try await WebSocketTestClient.connect(port: port)
            let text = String(repeating: "a", count: server.configuration.maxMessageBytes)
            try await client.send(text)
            #expect(try await client.receiveText() == text)
        }
    }

    @Test func messageOneByteOverMaxClosesWith1009() async throws {
        try await withServer { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            // The server may close before the last bytes are written (EPIPE on a loaded
            // machine); its close frame is read all the same.
            try? await client.send(String(repeating: "a", count: server.configuration.maxMessageBytes + 1))
            let close = try await client.receiveClose()
            #expect(close.code == 1009)
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.closed.first?.code == .messageTooBig)
            #expect(handler.messageCount == 0)
        }
    }

    /// The close frame comes whatever the limit's place against lws' receive buffer
    /// (2 KiB): a refusal that returned -1 from the receive callback made lws drop the
    /// socket without the close frame.
    @Test(arguments: [1000, 2047, 2048, 2049, 4096, 65536], [1, 3 * 2048 + 1])
    func oversizedMessageGetsItsCloseFrameAtAnyLimit(limit: Int, over: Int) async throws {
        try await withServer(configure: { $0.maxMessageBytes = limit }) { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try? await client.send(String(repeating: "c", count: limit + over))
            #expect(try await client.receiveClose().code == 1009)
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.closed.first?.code == .messageTooBig)
            #expect(handler.messageCount == 0)
        }
    }

    @Test func oversizedFragmentedMessageClosesWith1009() async throws {
        try await withServer(configure: { $0.maxMessageBytes = 1000 }) { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendFragmented(String(repeating: "b", count: 1001), parts: 4)
            #expect(try await client.receiveClose().code == 1009)
            #expect(handler.messageCount == 0)
        }
    }

    @Test func binaryFrameClosesWith1003() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendFrame(opcode: 0x2, payload: [1, 2, 3])
            #expect(try await client.receiveClose().code == 1003)
            #expect(await handler.waitUntil { $0.closed.first?.code == .unsupportedData })
            #expect(handler.messageCount == 0)
        }
    }

    @Test func invalidUTF8ClosesWith1007() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendFrame(opcode: 0x1, payload: [0x7b, 0xff, 0xfe, 0x7d])
            #expect(try await client.receiveClose().code == 1007)
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.messageCount == 0)
        }
    }

    @Test func invalidUTF8SplitAcrossFragmentsClosesWith1007() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            // "é" is C3 A9; send C3 then a non-continuation byte in the next fragment.
            try await client.sendFrame(opcode: 0x1, payload: [0x61, 0xC3], fin: false)
            try await client.sendFrame(opcode: 0x0, payload: [0x41], fin: true)
            #expect(try await client.receiveClose().code == 1007)
            #expect(handler.messageCount == 0)
        }
    }

    @Test func upgradesPastMaxConnectionsAreRefusedWith503() async throws {
        try await withServer(configure: { $0.maxConnections = 3 }) { server, port, handler in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<3 {
                clients.append(try await WebSocketTestClient.connect(port: port))
            }
            #expect(await handler.waitUntil { $0.opened.count == 3 })
            let refused = try await WebSocketTestClient.attempt(port: port)
            #expect(refused.responseStatus == 503)
            #expect(server.connectionCount == 3)

            try await clients[0].sendClose()
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            let admitted = try await WebSocketTestClient.connect(port: port)
            #expect(admitted.responseStatus == 101)
        }
    }
}
