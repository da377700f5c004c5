@testable import ReactorHubWebhooks
import Testing

/// `WebhookQueue`: one lane per reactor, in order; reactors apart; bounded bytes, the oldest
/// dropped first and never the one being sent; retries and the last attempt.
@Suite("The webhook queue")
struct WebhookQueueTests {
    static func delivery(_ id: String, _ reactor: String, bytes: Int = 10) -> WebhookDelivery {
        WebhookDelivery(id: id, reactor: reactor, body: Array(repeating: UInt8(ascii: "x"), count: bytes))
    }

    static let now = ContinuousClock.now
    static func oneSecond(_ retry: Int) -> Duration { .seconds(1) }

    @Test func aReactorsEventsLeaveOneAtATimeInOrder() {
        var queue = WebhookQueue(limitBytes: 1000, maxAttempts: 3)
        for id in ["a1", "a2", "a3"] { _ = queue.append(Self.delivery(id, "todo/a")) }
        #expect(queue.next(now: Self.now)?.id == "a1")
        #expect(queue.next(now: Self.now) == nil)  // a2 waits for a1
        #expect(queue.finish(reactor: "todo/a", delivered: true, now: Self.now, delay: Self.oneSecond) == .delivered)
        #expect(queue.next(now: Self.now)?.id == "a2")
    }

    @Test func otherReactorsGoMeanwhileOldestFirst() {
        var queue = WebhookQueue(limitBytes: 1000, maxAttempts: 3)
        _ = queue.append(Self.delivery("a1", "todo/a"))
        _ = queue.append(Self.delivery("b1", "todo/b"))
        _ = queue.append(Self.delivery("a2", "todo/a"))
        _ = queue.append(Self.delivery("c1", "todo/c"))
        #expect([queue.next(now: Self.now), queue.next(now: Self.now), queue.next(now: Self.now), queue.next(now: Self.now)].map { $0?.id } == ["a1", "b1", "c1", nil])
    }

    @Test func aFailureWaitsForItsRetryAndHoldsItsLane() {
        var queue = WebhookQueue(limitBytes: 1000, maxAttempts: 3)
        _ = queue.append(Self.delivery("a1", "todo/a"))
        _ = queue.append(Self.delivery("a2", "todo/a"))
        _ = queue.next(now: Self.now)
        #expect(queue.finish(reactor: "todo/a", delivered: false, now: Self.now, delay: Self.oneSecond) == .retry(Self.now + .seconds(1)))
        #expect(queue.next(now: Self.now) == nil)
        #expect(queue.nextRetry == Self.now + .seconds(1))
        let retried = queue.next(now: Self.now + .seconds(1))
        #expect(retried?.id == "a1")
        #expect(retried?.attempts == 1)
    }

    @Test func theNthRetryGetsItsOwnDelayAndTheLastAttemptDrops() {
        var queue = WebhookQueue(limitBytes: 1000, maxAttempts: 3)
        _ = queue.append(Self.delivery("a1", "todo/a"))
        _ = queue.append(Self.delivery("a2", "todo/a"))
        var asked: [Int] = []
        var time = Self.now
        for _ in 1...2 {
            _ = queue.next(now: time)
            let settled = queue.finish(reactor: "todo/a", delivered: false, now: time) { asked.append($0); return .seconds($0) }
            guard case .retry(let at) = settled else { return #expect(Bool(false), "\(settled)") }
            time = at
        }
        _ = queue.next(now: time)
        #expect(queue.finish(reactor: "todo/a", delivered: false, now: time, delay: Self.oneSecond) == .gaveUp)
        #expect(asked == [1, 2])
        #expect(queue.next(now: time)?.id == "a2")
    }

    @Test func pastItsBytesTheOldestWaitingAreDroppedNeverTheOneBeingSent() {
        var queue = WebhookQueue(limitBytes: 30, maxAttempts: 3)
        _ = queue.append(Self.delivery("a1", "todo/a"))
        #expect(queue.next(now: Self.now)?.id == "a1")  // being sent
        _ = queue.append(Self.delivery("a2", "todo/a"))
        _ = queue.append(Self.delivery("b1", "todo/b"))
        #expect(queue.append(Self.delivery("b2", "todo/b")) == 1)
        #expect(queue.lane("todo/a").map(\.id) == ["a1"])
        #expect(queue.lane("todo/b").map(\.id) == ["b1", "b2"])
        #expect(queue.bytes == 30)
        #expect(queue.append(Self.delivery("huge", "todo/c", bytes: 100)) == 3)
        #expect(queue.lane("todo/a").map(\.id) == ["a1"])
        #expect(queue.bytes == 10 && queue.count == 1)
    }
}

/// `WebhookRetry`: the n-th retry waits 2^(n-1) s ± 20 %, at most 60 s.
@Suite("Webhook retry delays")
struct WebhookRetryTests {
    @Test(arguments: [(1, 1.0), (2, 2.0), (3, 4.0), (6, 32.0)])
    func theNthRetryWaitsTwoToTheNMinusOneSecondsWithinTwentyPercent(_ retry: Int, _ seconds: Double) {
        #expect(WebhookRetry.delay(beforeRetry: retry, random: 0.5) == .milliseconds(Int(seconds * 1000)))
        #expect(WebhookRetry.delay(beforeRetry: retry, random: 0) == .milliseconds(Int(seconds * 800)))
        #expect(WebhookRetry.delay(beforeRetry: retry, random: 1) == .milliseconds(Int(seconds * 1200)))
    }

    @Test func noWaitIsLongerThanAMinute() {
        #expect(WebhookRetry.delay(beforeRetry: 7, random: 1) == .seconds(60))
        #expect(WebhookRetry.delay(beforeRetry: 40, random: 0) == .seconds(60))
    }
}
