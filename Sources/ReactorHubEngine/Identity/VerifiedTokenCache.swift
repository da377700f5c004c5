
/// The tokens verified at recent upgrades, kept so that a connection's open does not verify
/// again what its upgrade just verified, and so that many connections presenting one token
/// (tabs, reconnects) verify it once.
///
/// Two generations of at most `capacity` entries each: when the newer one is full it
/// becomes the older one and the oldest generation is dropped. A token verified at an
/// upgrade is therefore still found at its open as long as fewer than `capacity` other
/// tokens were verified in between; dropping everything when full, as before, made a
/// quarter of the connections verify twice when each had its own token.
struct VerifiedTokenCache {
    /// The most entries of one generation.
    let capacity: Int
    private var newer: [String: Identity] = [:]
    private var older: [String: Identity] = [:]

    init(capacity: Int = 1024) {
        precondition(capacity > 0, "a cache of no entries")
        self.capacity = capacity
    }

    /// How many tokens are kept, in both generations.
    var count: Int { newer.count + older.count }

    /// The kept result for `token`; one found in the older generation moves to the newer.
    mutating func lookUp(_ token: String) -> Identity? {
        if let kept = newer[token] { return kept }
        guard let kept = older.removeValue(forKey: token) else { return nil }
        insert(kept, for: token)
        return kept
    }

    /// Keeps `verified` as the result for `token`.
    mutating func insert(_ verified: Identity, for token: String) {
        if newer[token] == nil, newer.count >= capacity {
            older = newer
            newer = [:]
            newer.reserveCapacity(capacity)
        }
        newer[token] = verified
    }

    /// Forgets `token` (it no longer verifies).
    mutating func remove(_ token: String) {
        newer.removeValue(forKey: token)
        older.removeValue(forKey: token)
    }
}
