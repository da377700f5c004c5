import ReactorHubProtocol
import Testing
import ReactorHubWebSocketServer
@testable import ReactorHubEngine

/// The slow-reader policy as a value type, without sockets (PROTOCOL.md "Slow clients").
@Suite("Outbox: what waits for one connection")
struct OutboxTests {
    let stream = StreamID(rawValue: 1)
    let other = StreamID(rawValue: 2)

    func reply(_ text: String) -> Outgoing { .reply(OutboundMessage(text: text)) }
    func patch(_ version: Int, on stream: StreamID? = nil, bytes: Int = 10) -> Outgoing {
        let value = String(repeating: "x", count: bytes)
        return .patch(stream ?? self.stream, PatchFrameFactory.make(version, #"[{"op":"add","path":"/v","value":"\#(value)"}]"#))
    }
    func pulse(_ name: String) -> Outgoing { .pulse(stream, OutboundMessage(text: name)) }

    func drain(_ outbox: inout Outbox) -> [String] {
        var texts: [String] = []
        while let message = outbox.next() { texts.append(message.text) }
        return texts
    }

    @Test func aReaderThatKeepsUpGetsEveryMessageInOrderOneFramePerVersion() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 1 << 20))
        #expect(outbox.append(reply("hello")) == .queued(wasEmpty: true))
        #expect(outbox.append(patch(1)) == .queued(wasEmpty: false))
        #expect(outbox.append(patch(2)) == .queued(wasEmpty: false))
        _ = outbox.append(pulse("p2"))
        _ = outbox.append(patch(3))
        let texts = drain(&outbox)
        #expect(texts.count == 5)
        #expect(texts[0] == "hello" && texts[3] == "p2")
        #expect(texts[1].contains(#""version":1,"patch""#) && texts[4].contains(#""version":3,"patch""#))
        #expect(outbox.isEmpty && outbox.bytes == 0 && outbox.written.mergedWrites == 0)
    }

    /// A pull says whether it took the last message, and a lag's resync comes with the
    /// pull that drained the outbox (the transport pulls no more after it).
    @Test func aPullSaysWhenItTookTheLastMessageAndBringsTheResyncOwed() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 1000))
        #expect(outbox.pull().message == nil)
        _ = outbox.append(reply("r1"))
        _ = outbox.append(patch(1))
        var first = outbox.pull()
        #expect((first.message?.text, first.isLast, first.resync) == ("r1", false, []))
        first = outbox.pull()
        #expect(first.message?.text.contains(#""version":1,"patch""#) == true && first.isLast && first.resync == [])
        // A lag: shed on a full socket, then the replies drain; the last pull owes the resync.
        for version in 2...4 { _ = outbox.append(patch(version, bytes: 50)) }
        _ = outbox.append(reply("r2"))
        _ = outbox.choke()
        #expect(outbox.append(patch(5, bytes: 900)) == .shed(shedMessages: 4, laggingStreams: [stream]))
        let last = outbox.pull()
        #expect((last.message?.text, last.isLast, last.resync) == ("r2", true, [stream]))
        let after = outbox.pull()
        #expect(after.message == nil && after.isLast && after.resync == [])
        // The buffers kept after draining take the next message like new ones.
        #expect(outbox.append(.snapshot(stream, OutboundMessage(text: "snapshot"))) == .queued(wasEmpty: true))
        #expect(outbox.append(patch(6)) == .queued(wasEmpty: false))
        #expect(drain(&outbox).count == 2)
        #expect(outbox.isEmpty && outbox.bytes == 0)
    }

    @Test func patchesThatWaitedThroughAFullSocketLeaveMergedWithBase() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 1 << 20))
        for version in 1...5 { _ = outbox.append(patch(version)) }
        _ = outbox.choke()
        _ = outbox.append(patch(6))
        _ = outbox.append(reply("ack"))
        _ = outbox.append(patch(7))
        let texts = drain(&outbox)
        #expect(texts.count == 3)
        #expect(texts[0].hasPrefix(#"{"type":"patch","reactor":"doc/x","version":6,"base":0,"patch":[{"op":"add""#))
        #expect(texts[1] == "ack")
        // Queued after the last full socket: as it was published.
        #expect(texts[2].contains(#""version":7,"patch""#))
        #expect(outbox.written.mergedWrites == 1)
    }

    @Test func aFullSocketPastTheLimitShedsPatchesAndPulsesKeepsRepliesAndOwesOneSnapshot() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 1000))
        _ = outbox.append(reply("r1"))
        for version in 1...5 { _ = outbox.append(patch(version, bytes: 50)) }
        _ = outbox.append(pulse("p"))
        _ = outbox.append(patch(1, on: other, bytes: 50))
        _ = outbox.append(reply("r2"))
        #expect(outbox.choke() == nil)  // under the limit: nothing shed
        let outcome = outbox.append(patch(6, bytes: 900))
        #expect(outcome == .shed(shedMessages: 8, laggingStreams: [stream, other]))
        #expect(outbox.laggingStreams == [stream, other])
        // Updates of lagging streams are dropped on arrival; replies still queue.
        #expect(outbox.append(patch(7)) == .dropped)
        #expect(outbox.append(pulse("late")) == .dropped)
        _ = outbox.append(reply("r3"))
        #expect(outbox.takeResyncRequest() == [])  // not drained yet
        #expect(drain(&outbox) == ["r1", "r2", "r3"])
        #expect(outbox.takeResyncRequest() == [stream, other])
        #expect(outbox.takeResyncRequest() == [])  // once per lag
        _ = outbox.append(.snapshot(stream, OutboundMessage(text: "snapshot")))
        #expect(outbox.laggingStreams == [other])
        #expect(outbox.append(patch(8)) == .queued(wasEmpty: false))
        #expect(outbox.append(patch(2, on: other)) == .dropped)
    }

    @Test func repliesPastFourTimesTheLimitOnAFullSocketOverloadOnceThenNothingQueues() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 1000))
        _ = outbox.choke()
        var outcomes: [Outbox.AppendOutcome] = []
        for _ in 0..<500 {
            outcomes.append(outbox.append(reply(String(repeating: "r", count: 20))))
        }
        let overloaded = outcomes.indices.filter { outcomes[$0] == .overloaded }
        #expect(overloaded.count == 1)
        // 4 000 bytes of 20-byte replies: the 201st passes the bound.
        #expect(overloaded.first == 200)
        #expect(outcomes[(overloaded.first! + 1)...].allSatisfy { $0 == .dropped })
        #expect(outbox.isClosed && outbox.isEmpty)
    }

    @Test func aBacklogOfRepliesOnAFullSocketNeverRescansTheQueue() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 100_000))
        _ = outbox.choke()
        for version in 1...50 { _ = outbox.append(patch(version, bytes: 100)) }
        for index in 0..<20_000 { _ = outbox.append(reply("r\(index)")) }
        // The 50 patches were visited once when the limit was passed; the replies never.
        #expect(outbox.shedVisits == 50)
        // The first patch of another stream is shed (visited once); it then lags, and
        // its later patches are dropped on arrival without a visit.
        for version in 1...10 { _ = outbox.append(patch(version, on: other)) }
        #expect(outbox.shedVisits == 51)
        #expect(outbox.count == 20_000)
    }

    @Test func mergingStopsAtTheFrameLimitAndAtAnotherStream() {
        var outbox = Outbox(limits: DeliveryLimits(outboundQueueBytes: 8192))  // merged frames ≤ 2048 bytes
        for version in 1...30 { _ = outbox.append(patch(version, bytes: 150)) }
        _ = outbox.append(patch(1, on: other))
        _ = outbox.choke()
        let texts = drain(&outbox)
        #expect(texts.allSatisfy { $0.utf8.count <= 2048 })
        #expect(texts.count >= 4 && texts.count <= 6)
        #expect(texts.last!.contains(#""version":1,"patch""#))
    }
}
