import ReactorHubJSON
@testable import ReactorHubClient
import Testing

/// The rules of PROTOCOL.md "State, versions and patches", without sockets.
@Suite struct ReplicaTests {
    func replica(_ state: JSONValue = ["value": 0], epoch: String = "e1", version: Int = 3) -> Replica {
        var replica = Replica()
        replica.applySnapshot(state: state, epoch: epoch, version: version)
        return replica
    }

    @Test func aPatchAppliesToTheVersionItFollows() {
        var copy = replica()
        #expect(copy.applyPatch(version: 4, base: nil, patch: [["op": "replace", "path": "/value", "value": 1]]) == .applied)
        #expect(copy.version == 4)
        #expect(copy.state == ["value": 1])
    }

    @Test func aPatchWithABaseSpansSeveralVersions() {
        var copy = replica()
        #expect(copy.applyPatch(version: 9, base: 3, patch: [["op": "add", "path": "/x", "value": true]]) == .applied)
        #expect(copy.version == 9)
    }

    @Test func aPatchAheadOfTheHeldVersionIsAGapAndChangesNothing() {
        var copy = replica()
        #expect(copy.applyPatch(version: 5, base: nil, patch: [["op": "replace", "path": "/value", "value": 9]]) == .gap)
        #expect(copy.applyPatch(version: 9, base: 4, patch: []) == .gap)
        #expect(copy.version == 3)
        #expect(copy.state == ["value": 0])
    }

    @Test func aPatchNotAheadOfTheHeldVersionIsStale() {
        var copy = replica()
        #expect(copy.applyPatch(version: 3, base: nil, patch: [["op": "replace", "path": "/value", "value": 9]]) == .stale)
        #expect(copy.applyPatch(version: 2, base: 1, patch: []) == .stale)
        #expect(copy.state == ["value": 0])
    }

    @Test func aPatchThatDoesNotApplyIsBrokenAndLeavesTheCopyAsItWas() {
        var copy = replica()
        let outcome = copy.applyPatch(version: 4, base: nil, patch: [["op": "replace", "path": "/value", "value": 1], ["op": "remove", "path": "/missing"]])
        guard case .broken(let reason) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("missing"))
        #expect(copy.version == 3)
        #expect(copy.state == ["value": 0])
    }

    @Test func nothingAppliesBeforeTheFirstSnapshot() {
        var empty = Replica()
        #expect(empty.applyPatch(version: 1, base: nil, patch: []) == .notReady)
        #expect(empty.resumePoint == nil)
        #expect(empty.resume(epoch: "e1", version: 0) == .rejoinWithoutSince)
    }

    @Test func aResumeIsAcceptedOnlyInTheSameHistory() {
        let copy = replica()
        #expect(copy.resumePoint?.epoch == "e1")
        #expect(copy.resumePoint?.version == 3)
        #expect(copy.resume(epoch: "e1", version: 3) == .accept)
        #expect(copy.resume(epoch: "e1", version: 7) == .accept)   // the server's current version
        #expect(copy.resume(epoch: "e2", version: 3) == .rejoinWithoutSince)
        #expect(copy.resume(epoch: "e1", version: 2) == .rejoinWithoutSince)
    }
}

@Suite struct ActionLedgerTests {
    @Test func anActionLostOnceWaitsForOneResendWithItsID() {
        var ledger = ActionLedger()
        ledger.add(id: "a", address: "counter/x", payload: "increase")
        ledger.add(id: "b", address: "counter/x", payload: "decrease")
        ledger.markSent(id: "a", ref: 1, connection: 1)
        ledger.markSent(id: "b", ref: 2, connection: 1)
        #expect(ledger.connectionLost(1, resends: true).isEmpty)
        #expect(ledger.unsent(for: "counter/x").map(\.id) == ["a", "b"])
        ledger.markSent(id: "a", ref: 3, connection: 2)
        ledger.markSent(id: "b", ref: 4, connection: 2)
        #expect(ledger.answer(ref: 3)?.id == "a")
        let failed = ledger.connectionLost(2, resends: true)
        #expect(failed.map(\.id) == ["b"])
        #expect(failed.first?.sends == 2)
        #expect(ledger.isEmpty)
    }

    @Test func withoutResendsALostActionFailsAtOnce() {
        var ledger = ActionLedger()
        ledger.add(id: "a", address: "todo/x", payload: "clearCompleted")
        ledger.markSent(id: "a", ref: 1, connection: 1)
        #expect(ledger.connectionLost(1, resends: false).map(\.id) == ["a"])
    }

    @Test func actionsNotYetSentAreNotLostWithAConnection() {
        var ledger = ActionLedger()
        ledger.add(id: "a", address: "todo/x", payload: "clearCompleted")
        #expect(ledger.connectionLost(1, resends: false).isEmpty)
        #expect(ledger.unsent(for: "todo/x").count == 1)
        #expect(ledger.unsent(for: "todo/y").isEmpty)
        #expect(ledger.answer(ref: 1) == nil)
        #expect(ledger.remove(address: "todo/x").count == 1)
    }
}

@Suite struct BackoffTests {
    @Test func delaysDoubleFrom250MillisecondsUpTo8Seconds() {
        let backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(8), factor: 2, jitter: 0.5)
        let delays = (0..<8).map { backoff.delay(attempt: $0, random: 0) }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8)])
        #expect(backoff.delay(attempt: 1000, random: 0) == .seconds(8))
    }

    @Test func jitterTakesUpToItsShareOff() {
        let backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(8), factor: 2, jitter: 0.5)
        #expect(backoff.delay(attempt: 2, random: 0.5) == .milliseconds(750))
        #expect(backoff.delay(attempt: 2, random: 0.999999) > .milliseconds(500))
        #expect(backoff.delay(attempt: 5, random: 1) == .seconds(4))
    }
}

@Suite struct TokenExpiryTests {
    @Test func readsExpFromAJWTWithoutVerifyingIt() {
        #expect(TokenExpiry.expiry(of: makeToken(["sub": "alice", "exp": 1767225600])) == 1767225600)
        #expect(TokenExpiry.expiry(of: makeToken(["sub": "alice"])) == nil)
        #expect(TokenExpiry.expiry(of: "not-a-token") == nil)
        #expect(TokenExpiry.expiry(of: "a.%%%.c") == nil)
    }

    @Test func refreshesALeadBeforeExpiryOrHalfwayForShortTokens() {
        #expect(TokenExpiry.refreshDelay(expiry: 1000, now: 0, lead: 30) == 970)
        #expect(TokenExpiry.refreshDelay(expiry: 40, now: 0, lead: 30) == 20)
        #expect(TokenExpiry.refreshDelay(expiry: 10, now: 20, lead: 30) == 0)
    }
}
