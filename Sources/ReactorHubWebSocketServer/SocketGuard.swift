/// Which accepted sockets the server keeps (issue "Bounded under attack"): at most
/// `perAddress` open sockets from one peer address, and never so many in all that the
/// process runs out of descriptors (a reserve stays for `/healthz`, the store and logs).
/// A value type the service thread drives; tested without sockets.
struct SocketGuard {
    /// What to do with a socket just accepted.
    enum Verdict: Equatable {
        case keep
        /// Close it at once: its address holds `perAddress` sockets already.
        case tooManyFromAddress
        /// Close it at once: the descriptors left are the reserve.
        case outOfDescriptors
    }

    let perAddress: Int
    /// Sockets the server may hold in all (the open-file limit minus the reserve).
    let capacity: Int
    private(set) var open = 0
    private var byAddress: [String: Int] = [:]
    private var addressOf: [UInt: String] = [:]

    init(perAddress: Int, descriptorLimit: Int, reserve: Int) {
        self.perAddress = perAddress
        self.capacity = max(descriptorLimit - reserve, 1)
    }

    /// Decides on a socket from `address` before it is handed to libwebsockets.
    func admit(_ address: String) -> Verdict {
        if open >= capacity { return .outOfDescriptors }
        if byAddress[address, default: 0] >= perAddress { return .tooManyFromAddress }
        return .keep
    }

    /// A socket was kept, under `key` (its wsi).
    mutating func opened(_ key: UInt, address: String) {
        guard addressOf[key] == nil else { return }
        addressOf[key] = address
        byAddress[address, default: 0] += 1
        open += 1
    }

    /// The socket under `key` is gone.
    mutating func closed(_ key: UInt) {
        guard let address = addressOf.removeValue(forKey: key) else { return }
        open -= 1
        let remaining = (byAddress[address] ?? 1) - 1
        byAddress[address] = remaining > 0 ? remaining : nil
    }

    /// Open sockets from `address`.
    func count(from address: String) -> Int { byAddress[address] ?? 0 }
}

/// At most `rate` events per second with a burst of as many: the cap on new upgrades.
struct RateGate {
    let rate: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(perSecond rate: Int, now: ContinuousClock.Instant = .now) {
        self.rate = Double(max(rate, 1))
        self.tokens = self.rate
        self.last = now
    }

    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - last
        last = now
        tokens = min(rate, tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
