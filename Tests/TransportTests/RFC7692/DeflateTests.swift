import ReactorHubDeflate
import ReactorHubProtocol
import Testing
@testable import ReactorHubWebSocketServer

@Suite("permessage-deflate without sockets: the answer, the gate, inflating within limits")
struct DeflateTests {
    // MARK: Negotiation

    @Test func everyOfferIsAnsweredWithoutContextTakeoverOnBothSides() throws {
        let base = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"
        let plain = try #require(DeflateNegotiation(offers: "permessage-deflate"))
        #expect(plain == DeflateNegotiation(offers: "permessage-deflate; server_no_context_takeover"))
        #expect(plain.response == base)
        #expect(plain.clientWindowBits == 15)
        let chromium = try #require(DeflateNegotiation(offers: "permessage-deflate; client_max_window_bits"))
        #expect(chromium.response == base + "; client_max_window_bits=10")
        #expect(chromium.clientWindowBits == 10)
        let small = try #require(DeflateNegotiation(offers: "permessage-deflate;client_max_window_bits=\"9\""))
        #expect(small.response == base + "; client_max_window_bits=9")
        let full = try #require(DeflateNegotiation(offers: "Permessage-Deflate; SERVER_MAX_WINDOW_BITS=15"))
        #expect(full.response == base + "; server_max_window_bits=15")
    }

    @Test(arguments: [
        "permessage-deflate; server_max_window_bits=14", "permessage-deflate; server_max_window_bits",
        "permessage-deflate; client_max_window_bits=7", "permessage-deflate; client_max_window_bits=08",
        "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
        "permessage-deflate; client_no_context_takeover=yes", "permessage-deflate; unknown", "deflate-frame", "",
    ])
    func offersTheSharedCompressorCannotHonourAreDeclined(offer: String) {
        #expect(DeflateNegotiation(offers: offer) == nil)
    }

    @Test func theFirstAcceptableOfferWins() throws {
        let agreement = try #require(DeflateNegotiation(
            offers: "permessage-deflate; server_max_window_bits=8; client_max_window_bits, permessage-deflate; client_max_window_bits=12, permessage-deflate"
        ))
        #expect(agreement.response.hasSuffix("; client_max_window_bits=10"))
        #expect(DeflateNegotiation(offers: "foo; a=\"x,y\", permessage-deflate")?.clientWindowBits == 15)
    }

    // MARK: The gate

    func feed(_ gate: inout FrameGate, _ bytes: [UInt8]) -> FrameGate.Outcome {
        bytes.withUnsafeBytes { gate.feed($0) }
    }

    @Test func rsv1IsTakenOnlyOnAMessagesFirstFrameOnceNegotiated() {
        var plain = FrameGate()
        #expect(feed(&plain, FrameBytes.frame(0x1, [1], reserved: 0x40)).failure?.reason == "reserved bits set, and no extension was negotiated")
        var gate = FrameGate()
        gate.acceptsCompressedMessages = true
        #expect(feed(&gate, FrameBytes.frame(0x1, [1], reserved: 0x20)).failure?.code == .protocolError)
        var continuation = FrameGate()
        continuation.acceptsCompressedMessages = true
        let outcome = feed(&continuation, FrameBytes.frame(0x1, [1], fin: false) + FrameBytes.frame(0x0, [2], reserved: 0x40))
        #expect(outcome.failure?.reason == "RSV1 set on a continuation frame; only a message's first frame may have it")
        var control = FrameGate()
        control.acceptsCompressedMessages = true
        #expect(feed(&control, FrameBytes.frame(0x9, [], reserved: 0x40)).failure?.reason.contains("control frame") == true)
    }

    @Test func aCompressedMessageReachesLibwebsocketsAsBinaryWithoutRSV1AndItsStartIsKept() {
        var gate = FrameGate()
        gate.acceptsCompressedMessages = true
        let ping = FrameBytes.frame(0x9, [7])
        let compressed = FrameBytes.frame(0x1, Array(repeating: 9, count: 200), fin: false, reserved: 0x40)
        let rest = FrameBytes.frame(0x0, [1, 2])
        let binary = FrameBytes.frame(0x2, [3], reserved: 0x40)
        let plain = FrameBytes.text("{}")
        let stream = ping + compressed + rest + binary + plain
        // Fed in two pieces that cut the compressed frame's header: its offset counts from
        // the first byte not yet released, the held header included.
        let cut = ping.count + 3
        let first = feed(&gate, Array(stream[..<cut]))
        #expect(first.rewrites.isEmpty)
        #expect(first.releasable == ping.count)
        let second = feed(&gate, Array(stream[cut...]))
        #expect(second.failure == nil)
        #expect(second.rewrites == [
            .init(offset: 0, byte: 0x02),
            .init(offset: compressed.count + rest.count, byte: 0x82),
        ])
        #expect(gate.takeMessageStart() == .init(compressed: true, binary: false))
        #expect(gate.takeMessageStart() == .init(compressed: true, binary: true))
        #expect(gate.takeMessageStart() == .init(compressed: false, binary: false))
        #expect(gate.takeMessageStart() == nil)
    }

    @Test func withoutTheExtensionNoStartIsKept() {
        var gate = FrameGate()
        _ = feed(&gate, FrameBytes.text("{}") + FrameBytes.text("{}"))
        #expect(gate.messageStarts.isEmpty)
    }

    // MARK: Inflating into the assembler

    /// Feeds `frames` (payloads as lws hands them, with FIN) through an inflation.
    func receive(
        _ frames: [(bytes: [UInt8], final: Bool)], start: FrameGate.MessageStart, limit: Int = 64, pool: InflaterPool,
        inflation: inout InboundInflation
    ) -> [InboundAssembler.Outcome] {
        var assembler = InboundAssembler(maxMessageBytes: limit)
        var starts = [start]
        return frames.map { frame in
            frame.bytes.withUnsafeBytes { chunk in
                inflation.receive(
                    chunk, into: &assembler, start: { starts.isEmpty ? nil : starts.removeFirst() }, isBinary: start.binary || start.compressed,
                    isFinalFrame: frame.final, remainingInFrame: 0, pool: pool
                )
            }
        }
    }

    @Test func aCompressedMessageInPiecesInflatesToTheMessageAndTheInflaterGoesBack() {
        let pool = InflaterPool()
        var inflation = InboundInflation(windowBits: 10)
        let message = Array(#"{"type":"ping","ref":"é"}"#.utf8)
        let compressed = MessageDeflater(windowBits: 10).compress(message)
        let half = compressed.count / 2
        let outcomes = receive(
            [(Array(compressed[..<half]), false), (Array(compressed[half...]), true)], start: .init(compressed: true, binary: false),
            pool: pool, inflation: &inflation
        )
        #expect(outcomes == [.incomplete, .message(message)])
        #expect(!inflation.holdsInflater)
        #expect(pool.idleCount == 1)
    }

    @Test func inflatedBytesCountAgainstTheLimitWhateverTheCompressedSize() {
        let pool = InflaterPool()
        var inflation = InboundInflation(windowBits: 15)
        let big = Array(repeating: UInt8(ascii: " "), count: 65)
        let compressed = MessageDeflater().compress(big)
        #expect(compressed.count < 10)
        let outcomes = receive([(compressed, true)], start: .init(compressed: true, binary: false), pool: pool, inflation: &inflation)
        #expect(outcomes == [.refuse(.messageTooBig, "message exceeds 64 bytes")])
        #expect(!inflation.holdsInflater)
        #expect(pool.idleCount == 1)
    }

    @Test func badDataAndBadUTF8AreRefused() {
        let pool = InflaterPool()
        var inflation = InboundInflation(windowBits: 15)
        #expect(receive([([0xFF, 0xFF, 0xFF], true)], start: .init(compressed: true, binary: false), pool: pool, inflation: &inflation)
            .first.map { if case .refuse(.protocolError, _) = $0 { true } else { false } } == true)
        let invalid = MessageDeflater().compress([0x22, 0xC3, 0x28, 0x22])
        #expect(receive([(invalid, true)], start: .init(compressed: true, binary: false), pool: pool, inflation: &inflation)
            == [.refuse(.invalidPayload, "invalid UTF-8 in a text message")])
        #expect(pool.idleCount == 1)
    }

    @Test func plainMessagesPassAsTheyCame() {
        let pool = InflaterPool()
        var inflation = InboundInflation(windowBits: 15)
        let outcomes = receive(
            [(Array("{\"a\":".utf8), false), (Array("1}".utf8), true)], start: .init(compressed: false, binary: false), pool: pool,
            inflation: &inflation
        )
        #expect(outcomes == [.incomplete, .message(Array("{\"a\":1}".utf8))])
        #expect(pool.idleCount == 0)
    }

    // MARK: Outbound

    @Test func aMessageIsCompressedOnceWithItsFrameHeaderInFront() throws {
        let text = String(repeating: #"{"op":"add","path":"/items/-","value":{"title":"same"}},"#, count: 40)
        let message = OutboundMessage(text: text)
        let deflater = MessageDeflater()
        var made = 0
        let compressed = message.compressed { plain in
            made += 1
            return ServerCore.compress(plain, opcode: 0x1, with: deflater)
        }
        let again = message.compressed { _ in
            made += 1
            return OutboundMessage(text: "not used")
        }
        #expect(made == 1)
        #expect(again === compressed)
        let header = FrameBatch.headerSize(compressed.count)
        let framed = Array(UnsafeBufferPointer(start: compressed.payloadPointer - header, count: header + compressed.count))
        #expect(framed[0] == 0xC1)
        #expect(compressed.count < text.utf8.count / 10)
        var inflated: [UInt8] = []
        let inflater = MessageInflater()
        let outcome = compressed.withBytes { inflater.inflate($0, final: true) { inflated += $0; return true } }
        #expect(outcome == .inflated)
        #expect(inflated == Array(text.utf8))
    }

    @Test func theBatchFramesCompressedMessagesWithRSV1() {
        let batch = FrameBatch()
        batch.append(OutboundMessage([1, 2, 3]), compressed: true)
        batch.append(OutboundMessage([4]))
        #expect(batch.framed == [0xC1, 3, 1, 2, 3, 0x81, 1, 4])
    }
}
