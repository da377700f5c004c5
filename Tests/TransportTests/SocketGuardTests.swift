import Testing
@testable import ReactorHubWebSocketServer

/// The caps at accept, as values: sockets per address, the descriptor reserve and the
/// health-check sockets it lends, and TLS handshakes per address.
@Suite("Sockets at accept")
struct SocketGuardTests {
    @Test func whileTheSocketsAreFullTheReserveLendsAFewForHealthChecks() {
        var guard_ = SocketGuard(perAddress: 10, descriptorLimit: 68, reserve: 64, healthCheckSockets: 3)
        for key in 0..<4 {
            #expect(guard_.admit("10.0.0.\(key)") == .keep)
            guard_.opened(UInt(key), address: "10.0.0.\(key)")
        }
        var lent: [UInt] = []
        for key in 100..<103 {
            #expect(guard_.admit("10.0.0.99") == .healthCheckOnly)
            guard_.opened(UInt(key), address: "10.0.0.99", healthCheckOnly: true)
            lent.append(UInt(key))
        }
        #expect(guard_.admit("10.0.0.99") == .outOfDescriptors)
        #expect(guard_.open == 4 && guard_.healthCheckCount == 3)
        #expect(guard_.isHealthCheckOnly(101) && !guard_.isHealthCheckOnly(1))
        // A health check done gives its socket back to the reserve; a client leaving frees a place.
        guard_.closed(lent[0])
        #expect(guard_.admit("10.0.0.99") == .healthCheckOnly)
        guard_.closed(0)
        #expect(guard_.admit("10.0.0.99") == .keep)
        #expect(guard_.open == 3 && guard_.healthCheckCount == 2)
    }

    /// With several service threads a socket is counted when accepted (`take`), before the
    /// thread that serves it opens it: sockets on their way count against the caps.
    @Test func aTakenSocketCountsUntilItIsOpenedOrGivenBack() {
        var guard_ = SocketGuard(perAddress: 2, descriptorLimit: 100, reserve: 64)
        #expect(guard_.take("10.0.0.1") == .keep)
        #expect(guard_.take("10.0.0.1") == .keep)
        // Both on their way to other threads: the address is full already.
        #expect(guard_.take("10.0.0.1") == .tooManyFromAddress)
        #expect(guard_.open == 2 && guard_.count(from: "10.0.0.1") == 2)
        guard_.opened(7, address: "10.0.0.1", reserved: true)
        #expect(guard_.open == 2)
        // The other never became a connection: given back.
        guard_.cancel("10.0.0.1")
        #expect(guard_.open == 1 && guard_.count(from: "10.0.0.1") == 1)
        #expect(guard_.take("10.0.0.1") == .keep)
        guard_.opened(8, address: "10.0.0.1", reserved: true)
        let closedSeven = guard_.closed(7)
        let closedEight = guard_.closed(8)
        let closedUnknown = guard_.closed(9)
        #expect(closedSeven && closedEight && !closedUnknown)
        #expect(guard_.open == 0 && guard_.count(from: "10.0.0.1") == 0)
    }

    @Test func theReserveLendsAtMostHalfOfItself() {
        #expect(SocketGuard(perAddress: 1, descriptorLimit: 100, reserve: 4).healthCheckSockets == 2)
        #expect(SocketGuard(perAddress: 1, descriptorLimit: 100, reserve: 64).healthCheckSockets == 8)
    }

    @Test func eachAddressHasItsOwnHandshakeBucket() {
        let start = ContinuousClock.now
        var gates = AddressRateGates(perSecond: 50, burst: 100)
        let burst = (0..<150).filter { _ in gates.take("198.51.100.7", now: start) }.count
        #expect(burst == 100)
        let other = gates.take("198.51.100.8", now: start)
        #expect(other)
        // 50 a second refill it: a tenth of a second later, 5 more.
        let later = (0..<20).filter { _ in gates.take("198.51.100.7", now: start + .milliseconds(100)) }.count
        #expect(later == 5)
    }

    @Test func fullBucketsAreForgottenSoTheTableStaysSmall() {
        let start = ContinuousClock.now
        var gates = AddressRateGates(perSecond: 50, burst: 100)
        for second in 0..<20 {
            for host in 0..<100 {
                _ = gates.take("10.\(second).0.\(host)", now: start + .seconds(second * 3))
            }
        }
        // Only the addresses of the last few seconds (2 s refill a bucket) are kept.
        #expect(gates.count <= 300)
        #expect(gates.count >= 100)
    }
}
