import Reactor
import Testing

@Suite struct TestClockTests {
    @Test func scheduledWorkFiresInDeadlineThenSchedulingOrder() async {
        let clock = TestClock()
        let fired = Recorder<String>()
        _ = clock.schedule(after: .seconds(2)) { fired.append("b@\(clock.now)") }
        _ = clock.schedule(after: .seconds(1)) { fired.append("a@\(clock.now)") }
        _ = clock.schedule(after: .seconds(2)) { fired.append("c@\(clock.now)") }

        await clock.advance(by: .milliseconds(1500))
        #expect(fired.values == ["a@1.0 seconds"])
        #expect(clock.now == .milliseconds(1500))
        await clock.advance(by: .seconds(1))
        #expect(fired.values == ["a@1.0 seconds", "b@2.0 seconds", "c@2.0 seconds"])
        #expect(clock.pendingCount == 0)
    }

    @Test func cancelledWorkNeverFires() async {
        let clock = TestClock()
        let fired = Recorder<String>()
        let work = clock.schedule(after: .seconds(1)) { fired.append("fired") }
        work.cancel()
        await clock.advance(by: .seconds(5))
        #expect(fired.values.isEmpty)
        #expect(clock.pendingCount == 0)
    }

    @Test func sleepResumesWhenTheClockReachesItsDeadline() async throws {
        let clock = TestClock()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(3))
            return clock.now
        }
        #expect(await eventually { clock.pendingCount == 1 })
        await clock.advance(by: .seconds(2))
        #expect(clock.pendingCount == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await sleeper.value == .seconds(3))
    }

    @Test func cancellingASleepingTaskThrowsAndRemovesTheSleep() async {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(3)) }
        #expect(await eventually { clock.pendingCount == 1 })

        sleeper.cancel()

        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.pendingCount == 0)
    }

    @Test func sleepingForZeroReturnsAtOnce() async throws {
        let clock = TestClock()
        try await clock.sleep(for: .zero)
        #expect(clock.pendingCount == 0)
    }
}
