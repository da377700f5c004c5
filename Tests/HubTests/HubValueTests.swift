import ReactorHubProtocol
import ReactorHubJSON
import Testing
@testable import ReactorHubEngine

@Suite("Names, history, rate")
struct HubValueTests {
    @Test func addressesFollowTheNamingRules() {
        #expect(ReactorAddress("counter/lobby")?.kind == "counter")
        #expect(ReactorAddress("my-kind9/A.b_c-1")?.id == "A.b_c-1")
        #expect(ReactorAddress("Counter/x") == nil)
        #expect(ReactorAddress("9kind/x") == nil)
        #expect(ReactorAddress("counter/a/b") == nil)
        #expect(ReactorAddress("counter/" + String(repeating: "i", count: 64)) != nil)
        #expect(ReactorAddress("counter/" + String(repeating: "i", count: 65)) == nil)
        #expect(ReactorAddress(String(repeating: "k", count: 33) + "/x") == nil)
    }

    @Test func historyServesConsecutiveFramesOrNil() {
        var history = PatchHistory(capacity: 3)
        for version in 1...5 {
            history.append(PatchFrameFactory.make(version))
        }
        #expect(history.frames(after: 5, current: 5)?.count == 0)
        #expect(history.frames(after: 2, current: 5)?.map(\.version) == [3, 4, 5])
        #expect(history.frames(after: 3, current: 5)?.map(\.version) == [4, 5])
        #expect(history.frames(after: 1, current: 5) == nil)
    }

    /// Frames dropped for the byte bound do not stay in memory: at most as many as those
    /// held (a 60 KB value replaced 256 times kept every frame before).
    @Test func historyStoresWithinTwiceItsBounds() {
        // the size of the last ten frames (versions 291...300: as many digits each)
        let size = PatchFrameFactory.make(300, "[\"\(String(repeating: "x", count: 1000))\"]").message.count
        var history = PatchHistory(capacity: 256, maxBytes: 10 * size)
        for version in 1...300 {
            history.append(PatchFrameFactory.make(version, "[\"\(String(repeating: "x", count: 1000))\"]"))
            #expect(history.storedCount <= 2 * history.count + 1)
        }
        #expect(history.count == 10)
        #expect(history.frames(after: 290, current: 300)?.map(\.version) == Array(291...300))
        #expect(history.frames(after: 289, current: 300) == nil)
    }

    @Test func tokenBucketAllowsBurstThenRate() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(ratePerSecond: 10, burst: 2, now: start)
        let offsets: [Duration] = [.zero, .zero, .zero, .milliseconds(50), .milliseconds(110), .milliseconds(120)]
        let taken = offsets.map { bucket.take(now: start + $0) }
        #expect(taken == [true, true, false, false, true, false])
    }
    @Test func joinedSlotsReadLikeADictionary() throws {
        let addresses = try (0..<4).map { try #require(ReactorAddress("doc/room-\($0)")) }
        let slots = addresses.enumerated().map { InstanceSlot(address: $1, stream: StreamID(rawValue: UInt64($0))) }
        var joined = JoinedSlots()
        #expect(joined.isEmpty && joined[addresses[0]] == nil)
        joined[addresses[0]] = slots[0]
        #expect(joined.count == 1 && joined[addresses[0]] === slots[0] && joined[addresses[1]] == nil)
        joined[addresses[1]] = slots[1]
        joined[addresses[2]] = slots[2]
        joined[addresses[1]] = slots[1]
        #expect(joined.count == 3 && joined.keys == Array(addresses[0...2]))
        #expect(joined.map(\.value).map(\.address) == Array(addresses[0...2]))
        #expect(joined.removeValue(forKey: addresses[3]) == nil)
        #expect(joined.removeValue(forKey: addresses[0]) === slots[0])
        joined[addresses[2]] = nil
        #expect(joined.count == 1 && joined[addresses[1]] === slots[1] && joined[addresses[2]] == nil)
        #expect(joined.removeValue(forKey: addresses[1]) === slots[1])
        #expect(joined.isEmpty && joined.values.isEmpty)
    }
}
