import ReactorHubProtocol
import Testing
@testable import ReactorHubWebSocketServer

@Suite("Batched outbound frames (FrameBatch)")
struct FrameBatchTests {
    /// Reads unmasked frames back: (fin+opcode byte, payload) each.
    func frames(_ bytes: [UInt8]) -> [(first: UInt8, payload: String)] {
        var result: [(UInt8, String)] = []
        var at = 0
        while at < bytes.count {
            let first = bytes[at]
            var length = Int(bytes[at + 1] & 0x7F)
            #expect(bytes[at + 1] & 0x80 == 0, "server frames are not masked")
            at += 2
            if length == 126 {
                length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                at += 2
            } else if length == 127 {
                length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
                at += 8
            }
            result.append((first, String(decoding: bytes[at..<(at + length)], as: UTF8.self)))
            at += length
        }
        return result
    }

    @Test func messagesBecomeFinalTextFramesInOrder() {
        let batch = FrameBatch(capacity: 1024)
        let texts = ["{\"type\":\"ack\",\"ref\":1}", "", String(repeating: "x", count: 125), String(repeating: "y", count: 126)]
        for text in texts {
            batch.append(OutboundMessage(text: text))
        }
        #expect(batch.messages == 4)
        let read = frames(batch.framed)
        #expect(read.map(\.first) == [0x81, 0x81, 0x81, 0x81])
        #expect(read.map(\.payload) == texts)
        #expect(batch.count == texts.reduce(0) { $0 + $1.utf8.count } + 2 + 2 + 2 + 4)
    }

    @Test func lengthsTakeTheShortestEncoding() {
        let batch = FrameBatch(capacity: 70_000)
        batch.append(OutboundMessage(text: String(repeating: "a", count: 125)))
        #expect(Array(batch.framed.prefix(2)) == [0x81, 125])
        batch.reset()
        batch.append(OutboundMessage(text: String(repeating: "a", count: 300)))
        #expect(Array(batch.framed.prefix(4)) == [0x81, 126, 0x01, 0x2C])
        batch.reset()
        batch.append(OutboundMessage(text: String(repeating: "a", count: 65_536)))
        #expect(Array(batch.framed.prefix(10)) == [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(frames(batch.framed).first?.payload.count == 65_536)
    }

    @Test func aMessageThatWouldOverflowDoesNotFitAndResetEmpties() {
        let batch = FrameBatch(capacity: 100)
        let fifty = OutboundMessage(text: String(repeating: "z", count: 48))
        #expect(batch.fits(fifty))
        batch.append(fifty)
        #expect(batch.count == 50)
        #expect(batch.fits(fifty))
        batch.append(fifty)
        #expect(!batch.fits(OutboundMessage(text: "")))
        batch.reset()
        #expect(batch.count == 0 && batch.messages == 0)
        #expect(batch.fits(fifty))
    }

    @Test func onlySmallMessagesAreBatched() {
        #expect(FrameBatch.takes(OutboundMessage(text: String(repeating: "s", count: FrameBatch.messageLimit))))
        #expect(!FrameBatch.takes(OutboundMessage(text: String(repeating: "s", count: FrameBatch.messageLimit + 1))))
    }
}
