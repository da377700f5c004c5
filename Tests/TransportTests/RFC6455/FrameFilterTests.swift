import Testing
@testable import ReactorHubWebSocketServer

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

    @Test func aViolationLetsTheGoodBytesThroughAndOwesTheClose() {
        var filter = FrameFilter()
        let good = FrameBytes.text("ok")
        let got = reads([good + FrameBytes.text("bad", masked: false) + FrameBytes.text("after")], filter: &filter)
        #expect(got[0].1 == good)
        #expect(filter.failure == .init(code: .protocolError, reason: "client frames must be masked (RFC 6455 section 5.1)"))
    }

    @Test func bytesAfterTheViolationAreDroppedUntilTheCloseIsSent() {
        var filter = FrameFilter()
        let got = reads([FrameBytes.frame(0x8, [3]), FrameBytes.text("more")], filter: &filter)
        #expect(got.map(\.0) == [.wouldBlock, .wouldBlock, .endOfStream])
        #expect(filter.failure?.reason == "close frame with a 1-byte payload")
    }

    @Test func onceTheCloseIsSentTheNextReadEndsTheStream() {
        var filter = FrameFilter()
        let socket = ScriptedSocket([FrameBytes.text("x", masked: false), FrameBytes.close(1002)])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let first = buffer.withUnsafeMutableBytes { filter.receive(into: $0, read: socket.read) }
        let second = buffer.withUnsafeMutableBytes { filter.receive(into: $0, closeSent: true, read: socket.read) }
        #expect(first == .wouldBlock)
        #expect(second == .endOfStream)
        #expect(socket.chunks.isEmpty)
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

    @Test func readsLeaveRoomForTheHeldBytes() {
        var filter = FrameFilter()
        var lengths: [Int] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let frame = FrameBytes.text("hello")
        let socket = ScriptedSocket([Array(frame[0..<5]), Array(frame[5...])])
        for _ in 0..<2 {
            _ = buffer.withUnsafeMutableBytes { raw in
                filter.receive(into: raw) { target in
                    lengths.append(target.count)
                    return socket.read(into: target)
                }
            }
        }
        #expect(lengths == [4096, 4096 - 5])
        #expect(Array(buffer[0..<frame.count]) == frame)
    }
}
