import ReactorHubProtocol
import Testing

@Suite("Inbound reassembly (InboundAssembler)")
struct InboundAssemblerTests {
    func feed(_ assembler: inout InboundAssembler, _ text: String, final: Bool, remaining: Int = 0, binary: Bool = false)
        -> InboundAssembler.Outcome
    {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes {
            assembler.receive($0, isBinary: binary, isFinalFrame: final, remainingInFrame: remaining)
        }
    }

    @Test func singleChunkIsAWholeMessage() {
        var assembler = InboundAssembler(maxMessageBytes: 10)
        #expect(feed(&assembler, "hello", final: true) == .message(Array("hello".utf8)))
        #expect(assembler.pendingBytes == 0)
    }

    @Test func chunksAndFragmentsAreJoined() {
        var assembler = InboundAssembler(maxMessageBytes: 100)
        #expect(feed(&assembler, "ab", final: false, remaining: 2) == .incomplete)
        #expect(feed(&assembler, "cd", final: false) == .incomplete)
        #expect(feed(&assembler, "ef", final: true) == .message(Array("abcdef".utf8)))
    }

    @Test func exactlyTheLimitIsAcceptedOneMoreIsRefused() {
        var assembler = InboundAssembler(maxMessageBytes: 4)
        #expect(feed(&assembler, "abcd", final: true) == .message(Array("abcd".utf8)))
        #expect(feed(&assembler, "ab", final: false) == .incomplete)
        #expect(feed(&assembler, "cde", final: true) == .refuse(.messageTooBig, "message exceeds 4 bytes"))
    }

    @Test func announcedRemainderOverTheLimitIsRefusedEarly() {
        var assembler = InboundAssembler(maxMessageBytes: 100)
        #expect(feed(&assembler, "a", final: true, remaining: 500) == .refuse(.messageTooBig, "message exceeds 100 bytes"))
    }

    @Test func binaryIsRefused() {
        var assembler = InboundAssembler(maxMessageBytes: 100)
        guard case .refuse(let code, _) = feed(&assembler, "x", final: true, binary: true) else {
            Issue.record("binary accepted")
            return
        }
        #expect(code == .unsupportedData)
    }

    @Test func binaryIsPassedOnWhenAccepted() {
        var assembler = InboundAssembler(maxMessageBytes: 100, acceptsBinary: true)
        #expect(feed(&assembler, "ab", final: false, binary: true) == .incomplete)
        #expect(feed(&assembler, "cd", final: true, binary: true) == .binaryMessage(Array("abcd".utf8)))
        #expect(feed(&assembler, "t", final: true) == .message(Array("t".utf8)))
    }

    @Test func anAnnouncedLengthNear2To63DoesNotOverflow() {
        var assembler = InboundAssembler(maxMessageBytes: 100)
        #expect(feed(&assembler, "ab", final: false) == .incomplete)
        #expect(feed(&assembler, "c", final: false, remaining: Int.max - 1) == .refuse(.messageTooBig, "message exceeds 100 bytes"))
    }
}
