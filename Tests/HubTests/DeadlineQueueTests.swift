import Testing
@testable import ReactorHubEngine

@Suite("Deadline queue")
struct DeadlineQueueTests {
    @Test func dueKeysComeOutEarliestFirstAndOnlyOnce() {
        var queue = DeadlineQueue<Int, String>()
        for (key, deadline) in [(1, 50), (2, 10), (3, 40), (4, 20), (5, 30)] {
            queue.set(key, deadline: UInt64(deadline), value: "k\(key)")
        }
        var earliest = queue.earliest()
        #expect(earliest == 10)
        let due = queue.removeDue(at: 35)
        #expect(due.map(\.key) == [2, 4, 5])
        #expect(due.map(\.value) == ["k2", "k4", "k5"])
        #expect(queue.count == 2)
        #expect(queue.removeDue(at: 35).isEmpty)
        earliest = queue.earliest()
        #expect(earliest == 40)
        #expect(queue.removeDue(at: 100).map(\.key) == [3, 1])
        earliest = queue.earliest()
        #expect(earliest == nil && queue.count == 0)
    }

    @Test func settingAgainReplacesTheDeadlineAndTheValue() {
        var queue = DeadlineQueue<Int, String>()
        queue.set(7, deadline: 10, value: "auth timeout")
        queue.set(7, deadline: 90, value: "expiry")
        #expect(queue.count == 1)
        let earliest = queue.earliest()
        #expect(earliest == 90)
        #expect(queue.removeDue(at: 50).isEmpty)
        let due = queue.removeDue(at: 90)
        #expect(due.count == 1 && due.first?.key == 7 && due.first?.value == "expiry")
        // Earlier again: the later entry left behind does not fire.
        queue.set(8, deadline: 100, value: "late")
        queue.set(8, deadline: 60, value: "early")
        #expect(queue.removeDue(at: 60).map(\.value) == ["early"])
        #expect(queue.removeDue(at: 1000).isEmpty)
    }

    @Test func aRemovedKeyNeverComesDue() {
        var queue = DeadlineQueue<Int, Int>()
        queue.set(1, deadline: 5, value: 1)
        queue.set(2, deadline: 6, value: 2)
        let removed = queue.remove(1)
        let removedAgain = queue.remove(1)
        #expect(removed && !removedAgain)
        let earliest = queue.earliest()
        #expect(earliest == 6)
        #expect(queue.removeDue(at: 10).map(\.key) == [2])
    }

    // Connections that close long before their deadline (days, for long tokens) leave
    // entries behind; the heap is rebuilt so that it never holds more than twice the live
    // ones (plus 64), and what stays still comes out in order.
    @Test func closedKeysDoNotPileUp() {
        var queue = DeadlineQueue<Int, Int>()
        var largest = 0
        for round in 0..<50 {
            for index in 0..<200 {
                let key = round * 200 + index
                queue.set(key, deadline: UInt64(1_000_000 - key), value: key)
            }
            for index in 0..<198 {
                queue.remove(round * 200 + index)
            }
            largest = max(largest, queue.storedEntries)
            #expect(queue.storedEntries <= 2 * queue.count + 64 + 200)
        }
        #expect(queue.count == 100)
        #expect(largest < 2 * 100 + 64 + 200)
        let due = queue.removeDue(at: UInt64.max)
        var expected: [Int] = []
        for round in 0..<50 {
            expected += [round * 200 + 198, round * 200 + 199]
        }
        expected.sort(by: >)
        #expect(due.map(\.key) == expected)
        #expect(queue.storedEntries == 0)
    }

    // A token refreshed again and again sets one key each time: its old entries go too.
    @Test func aKeySetAgainAndAgainKeepsTheHeapSmall() {
        var queue = DeadlineQueue<Int, Int>()
        for refresh in 0..<10_000 {
            queue.set(1, deadline: UInt64(1_000_000 + refresh), value: refresh)
        }
        #expect(queue.count == 1)
        #expect(queue.storedEntries <= 65)
        let due = queue.removeDue(at: UInt64.max)
        #expect(due.count == 1 && due.first?.value == 9_999)
    }
}
