/// What waits for one receiver (API.md "Webhooks"), as a value tested without sockets:
/// one lane per reactor, so that events of a reactor go out in order (the next waits for
/// the one before to succeed or finally fail) while reactors do not wait for each other;
/// at most `limitBytes` of bodies, the oldest dropped beyond (never one being sent).
struct WebhookQueue {
    /// What `finish` made of an attempt.
    enum Settled: Equatable {
        /// Delivered: it leaves the queue.
        case delivered
        /// Failed; tried again at the instant given.
        case retry(ContinuousClock.Instant)
        /// Failed `maxAttempts` times: dropped.
        case gaveUp
    }

    let limitBytes: Int
    let maxAttempts: Int
    private var lanes: [String: [WebhookDelivery]] = [:]
    /// Reactors whose first delivery is being sent.
    private var sending: Set<String> = []
    private var nextSequence: UInt64 = 0
    /// Bytes of the bodies held.
    private(set) var bytes = 0
    /// Deliveries held.
    private(set) var count = 0

    init(limitBytes: Int, maxAttempts: Int) {
        self.limitBytes = limitBytes
        self.maxAttempts = maxAttempts
    }

    /// Queues `delivery` at the end of its reactor's lane; returns how many older ones were
    /// dropped to stay within `limitBytes` (it is dropped itself when it alone is larger).
    mutating func append(_ delivery: WebhookDelivery) -> Int {
        var delivery = delivery
        nextSequence += 1
        delivery.sequence = nextSequence
        lanes[delivery.reactor, default: []].append(delivery)
        bytes += delivery.body.count
        count += 1
        var dropped = 0
        while bytes > limitBytes, let oldest = oldestWaiting() {
            remove(at: oldest)
            dropped += 1
        }
        return dropped
    }

    /// The next delivery to send now: the oldest first delivery of a lane that is not being
    /// sent and not waiting for a retry; it counts as being sent until `finish`.
    mutating func next(now: ContinuousClock.Instant) -> WebhookDelivery? {
        let ready = lanes.compactMap { reactor, lane -> WebhookDelivery? in
            guard !sending.contains(reactor), let first = lane.first, first.notBefore.map({ $0 <= now }) ?? true else { return nil }
            return first
        }
        guard let chosen = ready.min(by: { $0.sequence < $1.sequence }) else { return nil }
        sending.insert(chosen.reactor)
        return chosen
    }

    /// The earliest instant a retry waits for, when no delivery is ready before it.
    var nextRetry: ContinuousClock.Instant? {
        lanes.compactMap { reactor, lane in sending.contains(reactor) ? nil : lane.first?.notBefore }.min()
    }

    /// Settles the attempt at the delivery being sent for `reactor`: `delivered` removes it,
    /// a failure schedules its retry after `delay(retry)` or, after `maxAttempts`, drops it.
    mutating func finish(
        reactor: String, delivered: Bool, now: ContinuousClock.Instant, delay: (Int) -> Duration
    ) -> Settled {
        sending.remove(reactor)
        guard var first = lanes[reactor]?.first else { return .gaveUp }
        first.attempts += 1
        if delivered || first.attempts >= maxAttempts {
            remove(at: (reactor, 0))
            return delivered ? .delivered : .gaveUp
        }
        let retryAt = now + delay(first.attempts)
        first.notBefore = retryAt
        lanes[reactor]?[0] = first
        return .retry(retryAt)
    }

    /// The deliveries of `reactor`, in order (tests).
    func lane(_ reactor: String) -> [WebhookDelivery] {
        lanes[reactor] ?? []
    }

    /// The oldest delivery not being sent, as (reactor, index in its lane).
    private func oldestWaiting() -> (String, Int)? {
        var oldest: (String, Int, UInt64)?
        for (reactor, lane) in lanes {
            let index = sending.contains(reactor) ? 1 : 0
            guard index < lane.count, oldest.map({ lane[index].sequence < $0.2 }) ?? true else { continue }
            oldest = (reactor, index, lane[index].sequence)
        }
        return oldest.map { ($0.0, $0.1) }
    }

    private mutating func remove(at position: (String, Int)) {
        guard var lane = lanes[position.0], position.1 < lane.count else { return }
        let removed = lane.remove(at: position.1)
        bytes -= removed.body.count
        count -= 1
        lanes[position.0] = lane.isEmpty ? nil : lane
    }
}
