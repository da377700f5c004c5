import ReactorHubProtocol
import TestSupport
import Testing
import ReactorHubWebSocketServer

/// The findings of the RFC 6455 probe, over real sockets: each framing violation is
/// answered with the close code section 5 and 7 ask for, and the layer above is told
/// that code. Before the receive tap, libwebsockets 4.1.6 accepted the unmasked frame,
/// dropped the TCP connection for the next four, and answered the close frames below
/// with an empty close, 1002, or an echo of an invalid code.
@Suite("RFC 6455 framing over the wire")
struct FramingConformanceTests {
    /// Sends `bytes` on a fresh connection and returns the server's close frame, after
    /// checking that the TCP connection ends after it and that no message went up.
    func closeAnswering(_ bytes: [UInt8]) async throws -> (code: UInt16?, reason: String, handlerCode: CloseCode?) {
        var result: (code: UInt16?, reason: String, handlerCode: CloseCode?) = (nil, "", nil)
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendRaw(bytes)
            let close = try await client.receiveClose()
            #expect(try await client.waitForEndOfStream())
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.messageCount == 0)
            result = (close.code, close.reason, handler.closed.first?.code)
        }
        return result
    }

    @Test func unmaskedTextFrameClosesWith1002() async throws {
        let answer = try await closeAnswering(WebSocketTestClient.encodeFrame(opcode: 0x1, payload: Array("{}".utf8), fin: true, masked: false))
        #expect(answer.code == 1002)
        #expect(answer.reason == "client frames must be masked (RFC 6455 section 5.1)")
        #expect(answer.handlerCode == .protocolError)
    }

    @Test func pingOver125BytesClosesWith1002() async throws {
        let answer = try await closeAnswering(WebSocketTestClient.encodeFrame(opcode: 0x9, payload: Array(repeating: 1, count: 126), fin: true))
        #expect(answer.code == 1002)
        #expect(answer.reason == "control frame payload over 125 bytes")
    }

    @Test func fragmentedPingClosesWith1002() async throws {
        let answer = try await closeAnswering(WebSocketTestClient.encodeFrame(opcode: 0x9, payload: [1], fin: false))
        #expect(answer.code == 1002)
    }

    @Test func invalidUTF8InTheCloseReasonClosesWith1007() async throws {
        let payload: [UInt8] = [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD]
        let answer = try await closeAnswering(WebSocketTestClient.encodeFrame(opcode: 0x8, payload: payload, fin: true))
        #expect(answer.code == 1007)
        #expect(answer.handlerCode == .invalidPayload)
    }

    @Test func lengthOf2To63ClosesWith1002() async throws {
        let header: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]
        let answer = try await closeAnswering(header)
        #expect(answer.code == 1002)
        #expect(answer.reason == "payload length with its most significant bit set")
    }

    @Test func closeWithOneBytePayloadClosesWith1002() async throws {
        let answer = try await closeAnswering(WebSocketTestClient.encodeFrame(opcode: 0x8, payload: [0x03], fin: true))
        #expect(answer.code == 1002)
        #expect(answer.reason == "close frame with a 1-byte payload")
    }

    @Test(arguments: [5000, 65535, 1005, 1015, 2000, 999] as [UInt16])
    func invalidCloseCodeIsAnsweredWith1002(code: UInt16) async throws {
        let payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        let answer = try await closeAnswering(WebSocketTestClient.encodeFrame(opcode: 0x8, payload: payload, fin: true))
        #expect(answer.code == 1002)
        #expect(answer.reason == "close code \(code) is not allowed")
    }

    @Test(arguments: [1000, 1001, 1011, 1012, 1013, 1014, 3000, 4999] as [UInt16])
    func validCloseCodeIsEchoed(code: UInt16) async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            try await client.sendClose(code: code, reason: "bye")
            let close = try await client.receiveClose()
            #expect(close.code == code)
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.closed.first?.code == CloseCode(rawValue: code))
            #expect(handler.closed.first?.reason == "bye")
        }
    }

    @Test func announcedLengthOverTheLimitClosesWith1009() async throws {
        try await withServer { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            let length: UInt64 = 1 << 62
            let header: [UInt8] = [0x81, 0xFF] + (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) } + [0, 0, 0, 0]
            try await client.sendRaw(header + Array("{".utf8))
            #expect(try await client.receiveClose().code == 1009)
            #expect(await handler.waitUntil { $0.closed.first?.code == .messageTooBig })
        }
    }

    @Test func framesBeforeTheViolationAreDelivered() async throws {
        try await withServer(echo: false) { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            let good = WebSocketTestClient.encodeFrame(opcode: 0x1, payload: Array("one".utf8), fin: true)
            let bad = WebSocketTestClient.encodeFrame(opcode: 0x1, payload: Array("two".utf8), fin: true, masked: false)
            try await client.sendRaw(good + bad)
            #expect(try await client.receiveClose().code == 1002)
            #expect(await handler.waitUntil { $0.closed.count == 1 })
            #expect(handler.messageCount == 1)
        }
    }

    @Test func violationSplitAcrossWritesIsStillCaught() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            let close = WebSocketTestClient.encodeFrame(opcode: 0x8, payload: [0x13, 0x88, 0x61], fin: true)
            for byte in close {
                try await client.sendRaw([byte])
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try await client.receiveClose().code == 1002)
            #expect(await handler.waitUntil { $0.closed.first?.code == .protocolError })
        }
    }

    @Test func everyPingOfABurstIsAnswered() async throws {
        try await withServer { _, port, _ in
            let client = try await WebSocketTestClient.connect(port: port)
            client.answersPings = false
            let pings = (0..<10).flatMap { WebSocketTestClient.encodeFrame(opcode: 0x9, payload: Array("payload-\($0)".utf8), fin: true) }
            try await client.sendRaw(pings)
            for index in 0..<10 {
                #expect(try await client.receive() == .pong(Array("payload-\(index)".utf8)))
            }
            try await client.send("still open")
            #expect(try await client.receiveText() == "still open")
        }
    }
}
