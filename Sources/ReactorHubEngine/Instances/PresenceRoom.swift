package import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubLocking

/// Who is in one instance and what they are doing (PROTOCOL.md "Presence"): each
/// connection's presence state, and the changes not broadcast yet, coalesced so that
/// changes piling up leave as one frame. Never versioned, never persisted.
package final class PresenceRoom: Sendable {
    package typealias Entry = PresenceEntry

    private struct Contents {
        package var entries: [String: Entry] = [:]
        /// Sessions whose entry changed (set or cleared) since the last broadcast, in order.
        package var changed: [String] = []
        package var flushScheduled = false
        /// The count the last broadcast carried, when it carried only a count.
        package var broadcastCount: Int?
    }

    /// Entries listed in snapshots and broadcasts; beyond, counts only.
    package let maxListed: Int
    private let contents = Locked(Contents())

    package init(maxListed: Int) {
        self.maxListed = maxListed
    }

    /// What a `set` did.
    package struct Change {
        /// The entry changed.
        package var changed: Bool
        /// A broadcast must be scheduled now (the first change since the last one).
        package var scheduleBroadcast: Bool
    }

    /// Sets (or, with nil, clears) `session`'s entry.
    @discardableResult
    package func set(_ session: String, user: String?, state: [UInt8]?) -> Change {
        contents.withLock { contents in
            let old = contents.entries[session]
            if let state {
                let entry = Entry(user: user, state: state)
                guard old != entry else { return Change(changed: false, scheduleBroadcast: false) }
                contents.entries[session] = entry
            } else {
                guard old != nil else { return Change(changed: false, scheduleBroadcast: false) }
                contents.entries[session] = nil
            }
            if !contents.changed.contains(session) { contents.changed.append(session) }
            guard !contents.flushScheduled else { return Change(changed: true, scheduleBroadcast: false) }
            contents.flushScheduled = true
            return Change(changed: true, scheduleBroadcast: true)
        }
    }

    /// The changes since the last broadcast, or nil when there is nothing to say.
    package func takeBroadcast() -> PresenceChange? {
        contents.withLock { contents -> PresenceChange? in
            contents.flushScheduled = false
            let changed = contents.changed
            contents.changed = []
            guard !changed.isEmpty else { return nil }
            if contents.entries.count > maxListed {
                // Only the count: nothing to say when it did not change.
                guard contents.broadcastCount != contents.entries.count else { return nil }
                contents.broadcastCount = contents.entries.count
                return .count(contents.entries.count)
            }
            // Back under the limit after counts: every entry, so that members can list them
            // again; otherwise the changes.
            let listedAgain = contents.broadcastCount != nil
            contents.broadcastCount = nil
            let joins = listedAgain ? contents.entries.keys.sorted() : changed.filter { contents.entries[$0] != nil }
            let leaves = listedAgain ? [] : changed.filter { contents.entries[$0] == nil }
            return .changes(joins: joins.map { ($0, contents.entries[$0]!) }, leaves: leaves)
        }
    }

    /// What every snapshot and `resumed` carries (PROTOCOL.md "Presence"): the entries
    /// (none: `{}`), or their count past `maxListed`.
    package func snapshot() -> PresenceSnapshot {
        contents.withLock { contents in
            if contents.entries.count > maxListed { return .count(contents.entries.count) }
            return .entries(contents.entries.keys.sorted().map { ($0, contents.entries[$0]!) })
        }
    }

    /// Entries held.
    package var count: Int { contents.withLock { $0.entries.count } }
}
