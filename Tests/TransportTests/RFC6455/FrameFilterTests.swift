import Testing
@testable import Transport

@Suite("What libwebsockets reads through the frame filter (FrameFilter)")
struct FrameFilterTests {
    /// A socket that hands out `chunks` one per read, then end of stream.
    final class ScriptedSocket {
        var chunks: [[UInt8]]
        init(_ chunks: [[UInt8]]) { self.chunks = chunks }

        func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard !chunks.isEmpty else { return 0 }
            let chunk = chunks.removeFirst()
            precondition(chunk.count <= buffer.count, "test chunk larger than the read")
            chunk.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return chunk.count
        }
    }

    /// What lws gets from each read, as (result, bytes).
    func reads(_ chunks: [[UInt8]], filter: inout FrameFilter, capacity: Int = 4096) -> [(FrameFilter.Result, [UInt8])] {
        let socket = ScriptedSocket(chunks)
        var results: [(FrameFilter.Result, [UInt8])] = []
        var buffer = [UInt8](repeating: 0, count: capacity)
        for _ in 0...chunks.count {
            let result = buffer.withUnsafeMutableBytes { filter.receive(into: $0, read: socket.read) }
            if case .count(let count) = result {
                results.append((result, Array(buffer[..<count])))
            } else {
                results.append((result, []))
            }
        }
        return results
    }

    @Test func validFramesPassUnchanged() {
        var filter = FrameFilter()
        let bytes = FrameBytes.text("hello") + FrameBytes.frame(0x2, [1, 2, 3])
        let got = reads([bytes], filter: &filter)
        #expect(got[0].0 == .count(bytes.count))
        #expect(got[0].1 == bytes)
        #expect(got[1].0 == .endOfStream)
    }

    @Test func aSplitHeaderIsHeldThenDeliveredWhole() {
        var filter = FrameFilter()
        let frame = FrameBytes.text("hello")
        let got = reads([Array(frame[0..<4]), Array(frame[4...])], filter: &filter)
        #expect(got[0].0 == .wouldBlock)
        #expect(got[1].1 == frame)
    }

    @Test func aViolationBecomesTheGatesCloseFrameAfterTheGoodBytes() {
        var filter = FrameFilter()
        let good = FrameBytes.text("ok")
        let got = reads([good + FrameBytes.text("bad", masked: false) + FrameBytes.text("after")], filter: &filter)
        let close = FrameFilter.closeFrame(.init(code: .protocolError, reason: "client frames must be masked (RFC 6455 section 5.1)"))
        #expect(got[0].1 == good + close)
        #expect(close[0] == 0x88 && close[1] & 0x80 != 0)
        #expect(Array(close[6..<8]) == [0x03, 0xEA])
        #expect(filter.failure?.code == .protocolError)
    }

    @Test func bytesAfterTheViolationAreDiscarded() {
        var filter = FrameFilter()
        let got = reads([FrameBytes.frame(0x8, [3]), FrameBytes.text("more")], filter: &filter)
        #expect(got[0].1.first == 0x88)
        #expect(got[1].0 == .wouldBlock)
        #expect(got[2].0 == .endOfStream)
    }

    @Test func pingsBecomePongsAndAreOwed() {
        var filter = FrameFilter()
        let pings = FrameBytes.frame(0x9, Array("a".utf8)) + FrameBytes.frame(0x9, Array("b".utf8))
        let got = reads([pings], filter: &filter)
        #expect(got[0].1.count == pings.count)
        #expect(got[0].1[0] == 0x8A && got[0].1[7] == 0x8A)
        #expect(Array(got[0].1[1...]) == Array(pings[1..<7]) + [0x8A] + Array(pings[8...]))
        #expect(filter.takePongs() == [Array("a".utf8), Array("b".utf8)])
        #expect(filter.takePongs().isEmpty)
    }

    @Test func atMostSixteenPongsAreOwedTheMostRecent() {
        var filter = FrameFilter()
        let pings = (0..<20).flatMap { FrameBytes.frame(0x9, [UInt8($0)]) }
        _ = reads([pings], filter: &filter)
        #expect(filter.takePongs() == (4..<20).map { [UInt8($0)] })
    }

    @Test func readsLeaveRoomForTheHeldBytesAndACloseFrame() {
        var filter = FrameFilter()
        var lengths: [Int] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = buffer.withUnsafeMutableBytes { raw in
            filter.receive(into: raw) { target in
                lengths.append(target.count)
                return 0
            }
        }
        #expect(lengths == [4096 - FrameFilter.closeFrameLimit])
    }

    @Test func closeFrameReasonIsCutAtACharacterBoundary() {
        let long = String(repeating: "é", count: 100)
        let frame = FrameFilter.closeFrame(.init(code: .protocolError, reason: long))
        #expect(frame.count <= FrameFilter.closeFrameLimit)
        #expect(String(validating: frame[8...], as: UTF8.self) != nil)
    }
}
