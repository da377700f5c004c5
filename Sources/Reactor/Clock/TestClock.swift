import ReactorHubLocking
/// A manual clock for tests: time moves only when the test calls `advance`, so a 500 ms delay
/// takes no real time and timers fire in a deterministic order.
///
/// Work due at the same instant fires in the order it was scheduled (a sleep counts from the
/// moment `sleep` was called). After each timer fires, `advance` waits until every runtime
/// using this clock has settled: the mutations it caused are reduced and any effect it woke is
/// parked again (see `EffectParking`), so that loops driven by the clock see every tick.
public final class TestClock: ReactorClock {
    private enum Fire: Sendable {
        case resume(UnsafeContinuation<Void, any Error>, parking: (any EffectParking)?)
        case work(@Sendable () -> Void)
    }

    private struct Entry: Sendable {
        var deadline: Duration
        var sequence: UInt64
        var fire: Fire
    }

    private struct WeakParking {
        weak var value: (any EffectParking)?
    }

    private struct Contents {
        var now: Duration
        var nextSequence: UInt64 = 0
        var pending: [Entry] = []
        var participants: [WeakParking] = []

        mutating func takeSequence() -> UInt64 {
            defer { nextSequence += 1 }
            return nextSequence
        }

        mutating func remove(_ sequence: UInt64) -> Entry? {
            guard let index = pending.firstIndex(where: { $0.sequence == sequence }) else { return nil }
            return pending.remove(at: index)
        }

        /// Removes the earliest entry due at or before `deadline` and moves `now` to its time.
        mutating func popDue(upTo deadline: Duration) -> Entry? {
            var best: Int?
            for index in pending.indices where pending[index].deadline <= deadline {
                if let current = best {
                    let (a, b) = (pending[index], pending[current])
                    if (a.deadline, a.sequence) < (b.deadline, b.sequence) { best = index }
                } else {
                    best = index
                }
            }
            guard let best else { return nil }
            let entry = pending.remove(at: best)
            now = max(now, entry.deadline)
            return entry
        }
    }

    private let contents: Locked<Contents>

    /// How long `advance` waits for a runtime to settle before it moves on anyway: the bound
    /// for effects that wait on something other than `send` or this clock.
    public let settleTimeout: Duration

    /// Creates a clock that reads `now` until advanced.
    public init(now: Duration = .zero, settleTimeout: Duration = .seconds(10)) {
        self.contents = Locked(Contents(now: now))
        self.settleTimeout = settleTimeout
    }

    public var now: Duration {
        contents.withLock { $0.now }
    }

    /// The number of sleeps and scheduled works not yet due.
    public var pendingCount: Int {
        contents.withLock { $0.pending.count }
    }

    /// Suspends until `advance` reaches `now + duration`; a duration of zero or less returns at once.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        guard duration > .zero else { return }
        let parking = EffectContext.parking
        let sequence = contents.withLock { $0.takeSequence() }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                // Checking cancellation under the lock closes the gap with `onCancel`: the flag is
                // set before the handler runs, and the handler takes this lock.
                let registered = contents.withLock { contents in
                    guard !Task.isCancelled else { return false }
                    let entry = Entry(
                        deadline: contents.now + duration,
                        sequence: sequence,
                        fire: .resume(continuation, parking: parking)
                    )
                    contents.pending.append(entry)
                    return true
                }
                if registered {
                    parking?.park()
                } else {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let entry = contents.withLock { $0.remove(sequence) }
            if case .resume(let continuation, let parking)? = entry?.fire {
                parking?.unpark()
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Schedules `work` for `now + duration`; even a zero duration waits for the next `advance`.
    public func schedule(after duration: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let sequence = contents.withLock { contents in
            let sequence = contents.takeSequence()
            let deadline = contents.now + max(duration, .zero)
            contents.pending.append(Entry(deadline: deadline, sequence: sequence, fire: .work(work)))
            return sequence
        }
        return ScheduledWork { [weak self] in
            _ = self?.contents.withLock { $0.remove(sequence) }
        }
    }

    /// Moves time forward by `duration`, firing everything that falls due on the way, in order.
    public func advance(by duration: Duration = .zero) async {
        await advance(to: now + duration)
    }

    /// Moves time forward to `deadline`, firing everything that falls due on the way, in order.
    public func advance(to deadline: Duration) async {
        await settle()
        while let entry = contents.withLock({ $0.popDue(upTo: deadline) }) {
            switch entry.fire {
            case .resume(let continuation, let parking):
                parking?.unpark()
                continuation.resume()
            case .work(let work):
                work()
            }
            await settle()
        }
        contents.withLock { $0.now = max($0.now, deadline) }
    }

    /// Makes `advance` wait for `parking` to settle after each timer; runtimes call this.
    func attach(_ parking: any EffectParking) {
        contents.withLock { contents in
            contents.participants.removeAll { $0.value == nil }
            contents.participants.append(WeakParking(value: parking))
        }
    }

    /// Waits until every attached runtime has settled; one that times out is not waited for
    /// again in this call.
    private func settle() async {
        var gaveUp: Set<ObjectIdentifier> = []
        while true {
            let participants = contents.withLock { $0.participants.compactMap(\.value) }
            var waited = false
            for parking in participants where !gaveUp.contains(ObjectIdentifier(parking)) && !parking.isSettled {
                waited = true
                if await !parking.settle(timeout: settleTimeout) {
                    gaveUp.insert(ObjectIdentifier(parking))
                }
            }
            if !waited { return }
        }
    }
}
