import TestSupport
import Testing
import ReactorHubWebSocketServer

@Suite("The echo path (diagnostics)")
struct EchoPathTests {
    func withEchoServer(
        maxBytes: Int = 16 << 20, _ body: (WebSocketServer, Int, RecordingHandler) async throws -> Void
    ) async throws {
        try await withServer(configure: {
            $0.echoPath = "/echo"
            $0.echoMaxMessageBytes = maxBytes
        }, body)
    }

    @Test func textAndBinaryComeBackAsSentWithoutTheHandler() async throws {
        try await withEchoServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port, path: "/echo")
            try await client.send("héllo")
            #expect(try await client.receive() == .text("héllo"))
            try await client.sendFrame(opcode: 0x2, payload: [0, 1, 2, 255])
            #expect(try await client.receive() == .binary([0, 1, 2, 255]))
            try await client.sendFragmented(String(repeating: "frag", count: 1000), parts: 5)
            #expect(try await client.receive() == .text(String(repeating: "frag", count: 1000)))
            try await client.sendClose(code: 1000)
            #expect(try await client.receiveClose().code == 1000)
            #expect(handler.opened.isEmpty)
            #expect(handler.messageCount == 0)
            #expect(handler.closed.isEmpty)
        }
    }

    /// Four times the protocol path's limit and 64 of lws' 4 KiB reads (Autobahn's 9.*
    /// cases go to 16 MiB; this stays cheap under the thread sanitizer).
    @Test func aMessageOfAQuarterMegabyteIsEchoed() async throws {
        try await withEchoServer { _, port, _ in
            let client = try await WebSocketTestClient.connect(port: port, path: "/echo")
            let payload = (0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try await client.sendFrame(opcode: 0x2, payload: payload)
            #expect(try await client.receive(timeout: 30) == .binary(payload))
        }
    }

    @Test func theEchoPathHasItsOwnSizeLimit() async throws {
        try await withEchoServer(maxBytes: 100) { server, port, _ in
            let client = try await WebSocketTestClient.connect(port: port, path: "/echo")
            try await client.sendFrame(opcode: 0x2, payload: Array(repeating: 1, count: 101))
            #expect(try await client.receiveClose().code == 1009)
            let hub = try await WebSocketTestClient.connect(port: port)
            let text = String(repeating: "a", count: server.configuration.maxMessageBytes)
            try await hub.send(text)
            #expect(try await hub.receiveText() == text)
        }
    }

    @Test func theProtocolPathStillRefusesBinary() async throws {
        try await withEchoServer { _, port, _ in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendFrame(opcode: 0x2, payload: [1])
            #expect(try await client.receiveClose().code == 1003)
        }
    }

    @Test func withoutAnEchoPathThereIsNone() async throws {
        try await withServer { _, port, _ in
            let client = try await WebSocketTestClient.attempt(port: port, path: "/echo")
            #expect(client.responseStatus == 404)
        }
    }
}
