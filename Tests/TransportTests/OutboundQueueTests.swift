import Testing
@testable import Transport

@Suite("Slow-consumer policy (OutboundQueue)")
struct OutboundQueueTests {
    let lobby = StreamID(rawValue: 1)
    let other = StreamID(rawValue: 2)

    func message(_ size: Int, _ kind: OutboundMessage.Kind) -> OutboundMessage {
        OutboundMessage([UInt8](repeating: 0x61, count: size), kind: kind)
    }

    @Test func underTheLimitEverythingIsQueuedInOrder() {
        var queue = OutboundQueue(limit: 1000)
        #expect(queue.append(message(100, .reliable)) == .queued)
        #expect(queue.append(message(200, .stateUpdate(lobby))) == .queued)
        #expect(queue.append(message(300, .event(lobby))) == .queued)
        #expect(queue.bytes == 600)
        #expect(queue.popFirst()?.count == 100)
        #expect(queue.popFirst()?.count == 200)
        #expect(queue.popFirst()?.count == 300)
        #expect(queue.popFirst() == nil)
        #expect(queue.bytes == 0)
    }

    @Test func passingTheLimitDropsUpdatesAndEventsButKeepsReplies() {
        var queue = OutboundQueue(limit: 1000)
        _ = queue.append(message(100, .reliable))
        _ = queue.append(message(400, .stateUpdate(lobby)))
        _ = queue.append(message(50, .event(other)))
        _ = queue.append(message(100, .reliable))
        let outcome = queue.append(message(400, .stateUpdate(lobby)))
        #expect(outcome == .lagStarted(droppedMessages: 3, laggingStreams: [lobby]))
        #expect(queue.count == 2)
        #expect(queue.bytes == 200)
        #expect(queue.laggingStreams == [lobby])
    }

    @Test func updatesOfALaggingStreamAreDiscardedOthersFlow() {
        var queue = OutboundQueue(limit: 100)
        _ = queue.append(message(80, .stateUpdate(lobby)))
        _ = queue.append(message(80, .stateUpdate(lobby)))
        #expect(queue.laggingStreams == [lobby])
        #expect(queue.append(message(10, .stateUpdate(lobby))) == .discarded)
        #expect(queue.append(message(10, .event(lobby))) == .discarded)
        #expect(queue.append(message(10, .stateUpdate(other))) == .queued)
        #expect(queue.count == 1)
    }

    @Test func resyncIsRequestedOnceWhenDrainedAndEndsTheLag() {
        var queue = OutboundQueue(limit: 100)
        _ = queue.append(message(60, .reliable))
        _ = queue.append(message(60, .stateUpdate(lobby)))
        #expect(queue.takeResyncRequest() == [])  // not drained yet
        _ = queue.popFirst()
        #expect(queue.takeResyncRequest() == [lobby])
        #expect(queue.takeResyncRequest() == [])  // asked once
        #expect(queue.append(message(10, .stateUpdate(lobby))) == .discarded)
        #expect(queue.append(message(90, .resync(lobby))) == .queued)
        #expect(queue.laggingStreams.isEmpty)
        #expect(queue.append(message(5, .stateUpdate(lobby))) == .queued)
        #expect(queue.count == 2)
    }

    @Test func backlogOfRepliesBeyondFourTimesTheLimitIsOverloaded() {
        var queue = OutboundQueue(limit: 100)
        for _ in 0..<4 {
            _ = queue.append(message(99, .reliable))
        }
        #expect(queue.bytes == 396)
        #expect(queue.append(message(10, .reliable)) == .overloaded)
    }

    @Test func onlyUpdatesThatPiledUpAcrossDrainsAreTakenForMerging() {
        var queue = OutboundQueue(limit: 1 << 20)
        for _ in 0..<5 { _ = queue.append(message(10, .stateUpdate(lobby)), arrival: 1) }
        // One burst: written one by one.
        #expect(queue.popMergeableRun(maxMessages: 100, maxBytes: 1000).count == 1)
        for _ in 0..<3 { _ = queue.append(message(10, .stateUpdate(lobby)), arrival: 2) }
        _ = queue.append(message(10, .event(lobby)), arrival: 2)
        _ = queue.append(message(10, .stateUpdate(lobby)), arrival: 3)
        // Four left from drain 1 and three from drain 2: the connection fell behind.
        #expect(queue.popMergeableRun(maxMessages: 100, maxBytes: 1000).count == 7)
        #expect(queue.popMergeableRun(maxMessages: 100, maxBytes: 1000).count == 1)  // the event
        #expect(queue.popMergeableRun(maxMessages: 100, maxBytes: 1000).count == 1)
        #expect(queue.isEmpty)
        #expect(queue.bytes == 0)
    }

    @Test func aBacklogThePeerCanStillTakeIsNotLag() {
        var queue = OutboundQueue(limit: 100)
        _ = queue.append(message(80, .stateUpdate(lobby)), peerIsChoked: { false })
        #expect(queue.append(message(80, .stateUpdate(lobby)), peerIsChoked: { false }) == .queued)
        #expect(queue.laggingStreams.isEmpty)
        #expect(queue.append(message(80, .stateUpdate(lobby)), peerIsChoked: { true })
            == .lagStarted(droppedMessages: 3, laggingStreams: [lobby]))
    }

    @Test func oneUpdateLargerThanTheLimitIsNotABacklog() {
        var queue = OutboundQueue(limit: 100)
        #expect(queue.append(message(500, .stateUpdate(lobby))) == .queued)
        #expect(queue.laggingStreams.isEmpty)
        #expect(queue.append(message(10, .stateUpdate(lobby))) == .lagStarted(droppedMessages: 2, laggingStreams: [lobby]))
    }

    @Test func repliesAloneOverTheLimitAreKeptWithoutLag() {
        var queue = OutboundQueue(limit: 100)
        #expect(queue.append(message(150, .reliable)) == .queued)
        #expect(queue.laggingStreams.isEmpty)
    }
}
