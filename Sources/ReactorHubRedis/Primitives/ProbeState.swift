/// The rule of the delivery probe, as a value tested without sockets: every probe published
/// must come back within `patience`; one that does not makes delivery silent, until a probe
/// published after the links were rebuilt comes back.
struct ProbeState: Sendable {
    let patience: Duration
    private(set) var next: UInt64 = 1
    /// Published and not back yet: number → when.
    private(set) var outstanding: [UInt64: ContinuousClock.Instant] = [:]
    /// Since when delivery is silent; nil while it works.
    private(set) var silentSince: ContinuousClock.Instant?
    /// Probes numbered from this one on were published after the last rebuild.
    private var rebuiltFrom: UInt64 = 0

    init(patience: Duration) {
        self.patience = patience
    }

    /// The number of the next probe; `published` records it once it is out.
    mutating func take() -> UInt64 {
        defer { next += 1 }
        return next
    }

    /// Probe `number` was published at `now`.
    mutating func published(_ number: UInt64, at now: ContinuousClock.Instant) {
        outstanding[number] = now
    }

    /// Probe `number` came back: it and every earlier one are accounted for (one channel
    /// keeps order, so an earlier one that is still out was lost). Delivery works again
    /// when it was published after the last rebuild.
    mutating func received(_ number: UInt64) {
        outstanding = outstanding.filter { $0.key > number }
        if silentSince != nil, number >= rebuiltFrom { silentSince = nil }
    }

    /// Checks at `now`; true when delivery just turned silent (a probe is out for longer
    /// than `patience`): the caller rebuilds the links, and the probes out are forgotten.
    mutating func check(at now: ContinuousClock.Instant) -> Bool {
        guard silentSince == nil, let oldest = outstanding.values.min(), now - oldest >= patience else { return false }
        silentSince = oldest + patience
        rebuiltFrom = next
        outstanding = [:]
        return true
    }
}
