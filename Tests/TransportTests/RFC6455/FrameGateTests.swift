import Testing
@testable import ReactorHubWebSocketServer

@Suite("RFC 6455 frame checks on the raw stream (FrameGate)")
struct FrameGateTests {
    func feed(_ gate: inout FrameGate, _ bytes: [UInt8]) -> FrameGate.Outcome {
        bytes.withUnsafeBytes { gate.feed($0) }
    }

    func failure(of bytes: [UInt8]) -> FrameGate.Failure? {
        var gate = FrameGate()
        return feed(&gate, bytes).failure
    }

    @Test func maskedFramesPassWhole() {
        var gate = FrameGate()
        let bytes = FrameBytes.text("hello") + FrameBytes.frame(0xA, [1, 2]) + FrameBytes.text("", fin: true)
        #expect(feed(&gate, bytes) == .init(releasable: bytes.count, failure: nil))
        #expect(gate.held == 0)
    }

    @Test func unmaskedFrameIsAProtocolError() {
        let hello = FrameBytes.text("hello")
        var gate = FrameGate()
        let outcome = feed(&gate, hello + FrameBytes.text("x", masked: false))
        #expect(outcome.releasable == hello.count)
        #expect(outcome.failure?.code == .protocolError)
        #expect(outcome.failure?.reason.contains("masked") == true)
    }

    @Test func controlFrameOver125BytesIsAProtocolError() {
        #expect(failure(of: FrameBytes.frame(0x9, Array(repeating: 7, count: 126)))?.code == .protocolError)
        #expect(failure(of: FrameBytes.frame(0x9, Array(repeating: 7, count: 125))) == nil)
    }

    @Test func fragmentedControlFrameIsAProtocolError() {
        #expect(failure(of: FrameBytes.frame(0x9, [1], fin: false))?.reason == "fragmented control frame")
    }

    @Test func lengthWithTheTopBitSetIsAProtocolErrorAtItsFirstByte() {
        var gate = FrameGate()
        let header = FrameBytes.header64(0x2, length: 1 << 63)
        let outcome = feed(&gate, Array(header.prefix(3)))
        #expect(outcome == .init(releasable: 0, failure: .init(code: .protocolError, reason: "payload length with its most significant bit set")))
    }

    @Test func reservedBitsAndOpcodesAreProtocolErrors() {
        #expect(failure(of: FrameBytes.frame(0x1, [], reserved: 0x40))?.code == .protocolError)
        #expect(failure(of: FrameBytes.frame(0x3))?.reason == "reserved opcode 3")
        #expect(failure(of: FrameBytes.frame(0xB))?.reason == "reserved opcode 11")
    }

    @Test func fragmentationOrderIsChecked() {
        #expect(failure(of: FrameBytes.frame(0x0, [1]))?.code == .protocolError)
        #expect(failure(of: FrameBytes.text("a", fin: false) + FrameBytes.text("b"))?.code == .protocolError)
        #expect(failure(of: FrameBytes.text("a", fin: false) + FrameBytes.frame(0x9) + FrameBytes.frame(0x0, [1])) == nil)
    }

    @Test func closePayloadOfOneByteIsAProtocolError() {
        #expect(failure(of: FrameBytes.frame(0x8, [0x03])) == .init(code: .protocolError, reason: "close frame with a 1-byte payload"))
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] as [UInt16])
    func invalidCloseCodesAreProtocolErrors(code: UInt16) {
        #expect(failure(of: FrameBytes.close(code)) == .init(code: .protocolError, reason: "close code \(code) is not allowed"))
    }

    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999] as [UInt16])
    func validCloseCodesPassAndAreRemembered(code: UInt16) {
        var gate = FrameGate()
        let bytes = FrameBytes.close(code, Array("bye".utf8))
        #expect(feed(&gate, bytes) == .init(releasable: bytes.count, failure: nil))
        #expect(gate.peerCloseCode == code)
    }

    @Test func closeReasonMustBeUTF8() {
        #expect(failure(of: FrameBytes.close(1000, [0xCE, 0xBA, 0xE1, 0xBD])) == .init(code: .invalidPayload, reason: "close reason is not valid UTF-8"))
        #expect(failure(of: FrameBytes.close(1000, Array("κόσμε".utf8))) == nil)
    }

    @Test func emptyCloseIsValid() {
        var gate = FrameGate()
        #expect(feed(&gate, FrameBytes.frame(0x8)).failure == nil)
        #expect(gate.peerCloseCode == nil)
    }

    @Test func partialHeaderIsHeldUntilWhole() {
        var gate = FrameGate()
        let frame = FrameBytes.text("hello")
        #expect(feed(&gate, Array(frame[0..<3])) == .init(releasable: 0, failure: nil))
        #expect(gate.held == 3)
        #expect(feed(&gate, Array(frame[3...])) == .init(releasable: frame.count, failure: nil))
    }

    @Test func dataPayloadPassesAtOnceAcrossChunks() {
        var gate = FrameGate()
        let frame = FrameBytes.frame(0x2, Array(repeating: 1, count: 1000))
        #expect(feed(&gate, Array(frame[0..<100])) == .init(releasable: 100, failure: nil))
        #expect(feed(&gate, Array(frame[100...])) == .init(releasable: frame.count - 100, failure: nil))
        #expect(feed(&gate, FrameBytes.text("ok")).releasable == FrameBytes.text("ok").count)
    }

    @Test func controlFrameIsHeldUntilItsPayloadIsWholeThenChecked() {
        var gate = FrameGate()
        let close = FrameBytes.close(5000, Array("no".utf8))
        #expect(feed(&gate, Array(close[0..<8])) == .init(releasable: 0, failure: nil))
        #expect(feed(&gate, Array(close[8...])).failure?.reason == "close code 5000 is not allowed")
    }

    @Test func pingsAreReportedWhereTheyStart() {
        var gate = FrameGate()
        let hello = FrameBytes.text("hello")
        let bytes = hello + FrameBytes.frame(0x9, Array("p0".utf8)) + FrameBytes.frame(0x9)
        let outcome = feed(&gate, bytes)
        #expect(outcome.pings == [.init(offset: hello.count, payload: Array("p0".utf8)), .init(offset: hello.count + 8, payload: [])])
        #expect(outcome.releasable == bytes.count)
    }

    @Test func afterAValidCloseEverythingPasses() {
        var gate = FrameGate()
        let bytes = FrameBytes.close(1000) + FrameBytes.text("late", masked: false)
        #expect(feed(&gate, bytes) == .init(releasable: bytes.count, failure: nil))
    }
}
