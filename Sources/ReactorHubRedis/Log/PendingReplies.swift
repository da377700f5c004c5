import ReactorHubEngine
import ReactorHubProtocol
import ReactorHubJSON

/// The senders on this node waiting for the reply to an action the owner applies (in a
/// cluster every action goes through the owner, here or on another node): each gets
/// exactly one reply, the owner's, or `overloaded` when none came in time (the owner died
/// with the action; a resend with the same id is safe).
struct PendingReplies {
    struct Entry {
        let output: ConnectionOutput
        let ref: Ref?
        let address: String
        let deadline: ContinuousClock.Instant
        /// The node the action was posted to, once it was.
        var owner: String?
    }

    private var next: UInt64 = 0
    private var entries: [UInt64: Entry] = [:]

    var count: Int { entries.count }

    /// Keeps the sender; returns its token.
    mutating func add(_ entry: Entry) -> UInt64 {
        next += 1
        entries[next] = entry
        return next
    }

    /// Takes the sender of `token`; nil when it was answered already or timed out.
    mutating func take(_ token: UInt64) -> Entry? {
        entries.removeValue(forKey: token)
    }

    /// Gives the sender of `token` until `deadline` (not earlier than it had): the owner
    /// said its reply is on its way.
    mutating func extend(_ token: UInt64, until deadline: ContinuousClock.Instant) {
        guard let entry = entries[token], entry.deadline < deadline else { return }
        entries[token] = Entry(output: entry.output, ref: entry.ref, address: entry.address, deadline: deadline, owner: entry.owner)
    }

    /// Gives every sender whose action went to another node's inbox until `deadline` at the
    /// most (the master moved: those inbox entries may have been lost with it).
    mutating func shortenForwarded(to deadline: ContinuousClock.Instant) {
        for (token, entry) in entries where entry.owner != nil && entry.deadline > deadline {
            entries[token] = Entry(output: entry.output, ref: entry.ref, address: entry.address, deadline: deadline, owner: entry.owner)
        }
    }

    /// Notes that the action of `token` was posted to `owner`'s inbox.
    mutating func posted(_ token: UInt64, to owner: String) {
        entries[token]?.owner = owner
    }

    /// Takes every sender whose deadline has passed, or whose action went to a node that
    /// no longer owns its instance (`owners`: the holder now, by address; it died or stalled
    /// with the action, whose reply will never come).
    mutating func expire(now: ContinuousClock.Instant, owners: [String: String]) -> [Entry] {
        let late = entries.filter { _, entry in
            if entry.deadline <= now { return true }
            guard let owner = entry.owner, let current = owners[entry.address] else { return false }
            return current != owner
        }
        for token in late.keys { entries[token] = nil }
        return Array(late.values)
    }
}
