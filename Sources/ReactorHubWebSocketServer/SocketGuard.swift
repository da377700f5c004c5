/// Which accepted sockets the server keeps (issue "Bounded under attack"): at most
/// `perAddress` open sockets from one peer address, and never so many in all that the
/// process runs out of descriptors (a reserve stays for `/healthz`, the store and logs).
/// While the sockets have taken all they may, up to `healthCheckSockets` more come from
/// the reserve, each for one `GET /healthz` sent within a second (issue 30: a health check
/// from a fresh address got no answer during an exhaustion).
/// A value type the service threads drive under one lock (`ServerShared`); tested without sockets.
struct SocketGuard {
    /// What to do with a socket just accepted.
    enum Verdict: Equatable {
        case keep
        /// Close it at once: its address holds `perAddress` sockets already.
        case tooManyFromAddress
        /// Close it at once: the descriptors left are the reserve, and its health-check
        /// sockets are taken.
        case outOfDescriptors
        /// Keep it from the reserve, for one `GET /healthz` within a second, then close it.
        case healthCheckOnly
    }

    let perAddress: Int
    /// Sockets the server may hold in all (the open-file limit minus the reserve).
    let capacity: Int
    /// Sockets the reserve lends to health checks at once.
    let healthCheckSockets: Int
    private(set) var open = 0
    private var byAddress: [String: Int] = [:]
    private var addressOf: [UInt: String] = [:]
    /// The sockets lent by the reserve, by key.
    private var healthChecks: Set<UInt> = []

    init(perAddress: Int, descriptorLimit: Int, reserve: Int, healthCheckSockets: Int = 8) {
        self.perAddress = perAddress
        self.capacity = max(descriptorLimit - reserve, 1)
        self.healthCheckSockets = min(healthCheckSockets, reserve / 2)
    }

    /// Decides on a socket from `address` before it is handed to libwebsockets.
    func admit(_ address: String) -> Verdict {
        if open >= capacity {
            return healthChecks.count < healthCheckSockets ? .healthCheckOnly : .outOfDescriptors
        }
        if byAddress[address, default: 0] >= perAddress { return .tooManyFromAddress }
        return .keep
    }

    /// Decides on a socket from `address` and, when it is kept, counts it at once (a
    /// reservation `opened(_:address:reserved:)` takes over, or `cancel` gives back): with
    /// several service threads a socket is accepted on one and served on another, and the
    /// caps must hold for the sockets on their way.
    mutating func take(_ address: String) -> Verdict {
        let verdict = admit(address)
        if verdict == .keep {
            byAddress[address, default: 0] += 1
            open += 1
        }
        return verdict
    }

    /// Gives back the reservation `take` made for a socket from `address` that was never opened.
    mutating func cancel(_ address: String) {
        open -= 1
        let remaining = (byAddress[address] ?? 1) - 1
        byAddress[address] = remaining > 0 ? remaining : nil
    }

    /// A socket was kept, under `key` (its wsi); `healthCheckOnly`: lent by the reserve;
    /// `reserved`: `take` counted it already.
    mutating func opened(_ key: UInt, address: String, healthCheckOnly: Bool = false, reserved: Bool = false) {
        guard addressOf[key] == nil, !healthChecks.contains(key) else {
            if reserved { cancel(address) }
            return
        }
        if healthCheckOnly {
            healthChecks.insert(key)
            return
        }
        addressOf[key] = address
        if reserved { return }
        byAddress[address, default: 0] += 1
        open += 1
    }

    /// The socket under `key` is gone; returns whether it was one opened here.
    @discardableResult
    mutating func closed(_ key: UInt) -> Bool {
        if healthChecks.remove(key) != nil { return true }
        guard let address = addressOf.removeValue(forKey: key) else { return false }
        open -= 1
        let remaining = (byAddress[address] ?? 1) - 1
        byAddress[address] = remaining > 0 ? remaining : nil
        return true
    }

    /// Whether the socket under `key` was lent by the reserve for a health check.
    func isHealthCheckOnly(_ key: UInt) -> Bool { healthChecks.contains(key) }

    /// Sockets lent by the reserve now.
    var healthCheckCount: Int { healthChecks.count }

    /// Open sockets from `address`.
    func count(from address: String) -> Int { byAddress[address] ?? 0 }
}

/// At most `rate` events per second with a burst of `burst` (by default as many): the cap
/// on new upgrades, and on TLS handshakes per address (`AddressRateGates`).
struct RateGate {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private(set) var last: ContinuousClock.Instant

    init(perSecond rate: Int, burst: Int? = nil, now: ContinuousClock.Instant = .now) {
        self.rate = Double(max(rate, 1))
        self.burst = Double(max(burst ?? rate, 1))
        self.tokens = self.burst
        self.last = now
    }

    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - last
        last = now
        tokens = min(burst, tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whether the gate is full again at `now` (it then behaves as a new one).
    func isFull(at now: ContinuousClock.Instant) -> Bool {
        let idle = now - last
        return Double(idle.components.seconds) + Double(idle.components.attoseconds) / 1e18 >= burst / rate
    }
}
