/// A `RateGate` per peer address: the cap on TLS handshakes one address may start per
/// second (`limits.tlsHandshakesPerSecond`, bursts of `limits.tlsHandshakeBurst`), so that
/// one client cannot keep the service thread doing RSA and ECDHE for everyone.
///
/// An address's gate is forgotten once it is full again (it would behave as a new one),
/// swept whenever the table has doubled since the last sweep, so the table holds about
/// the addresses seen within `burst / rate` seconds, however many pass.
struct AddressRateGates {
    let rate: Int
    let burst: Int
    private var gates: [String: RateGate] = [:]
    private var sweptAt = 64

    init(perSecond rate: Int, burst: Int) {
        self.rate = rate
        self.burst = burst
    }

    /// Takes one event for `address`; false when its gate is empty.
    mutating func take(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
        if gates.count >= sweptAt {
            gates = gates.filter { !$0.value.isFull(at: now) }
            sweptAt = max(64, gates.count * 2)
        }
        var gate = gates[address] ?? RateGate(perSecond: rate, burst: burst, now: now)
        let taken = gate.take(now: now)
        gates[address] = gate
        return taken
    }

    /// Addresses with a gate now.
    var count: Int { gates.count }
}
