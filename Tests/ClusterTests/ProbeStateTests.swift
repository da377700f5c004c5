@testable import ReactorHubRedis
import Testing

/// The delivery probe's rule (`ProbeState`), without sockets: a probe out longer than the
/// patience makes delivery silent until one published after the rebuild comes back.
@Suite("The delivery probe's rule")
struct ProbeStateTests {
    @Test func probesThatComeBackKeepDeliveryProven() {
        var probe = ProbeState(patience: .seconds(2))
        let start = ContinuousClock.now
        for second in 0..<5 {
            let number = probe.take()
            probe.published(number, at: start + .seconds(second))
            probe.received(number)
            let silent1 = probe.check(at: start + .seconds(second) + .milliseconds(2500))
            #expect(!silent1)
        }
        #expect(probe.silentSince == nil)
        #expect(probe.outstanding.isEmpty)
    }

    @Test func aProbeOutPastThePatienceMakesDeliverySilentOnce() {
        var probe = ProbeState(patience: .seconds(2))
        let start = ContinuousClock.now
        let first = probe.take()
        probe.published(first, at: start)
        let silent2 = probe.check(at: start + .milliseconds(1999))
        #expect(!silent2)
        let silent3 = probe.check(at: start + .seconds(2))
        #expect(silent3)
        #expect(probe.silentSince == start + .seconds(2))
        // Told once: the links are being rebuilt.
        let second = probe.take()
        probe.published(second, at: start + .seconds(3))
        let silent4 = probe.check(at: start + .seconds(6))
        #expect(!silent4)
        // A probe published before the rebuild proves nothing; one published after it does.
        probe.received(first)
        #expect(probe.silentSince != nil)
        probe.received(second)
        #expect(probe.silentSince == nil)
    }

    @Test func aLaterProbeAccountsForTheEarlierOnesLost() {
        var probe = ProbeState(patience: .seconds(2))
        let start = ContinuousClock.now
        let lost = probe.take()
        probe.published(lost, at: start)
        let back = probe.take()
        probe.published(back, at: start + .seconds(1))
        probe.received(back)
        #expect(probe.outstanding.isEmpty)
        let silent5 = probe.check(at: start + .seconds(5))
        #expect(!silent5)
    }
}
