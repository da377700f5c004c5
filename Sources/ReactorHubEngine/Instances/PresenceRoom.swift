import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubLocking

/// Who is in one instance and what they are doing (PROTOCOL.md "Presence"): each
/// connection's presence state, and the changes not broadcast yet, coalesced so that
/// changes piling up leave as one frame. Never versioned, never persisted.
final class PresenceRoom: Sendable {
    struct Entry: Sendable, Equatable {
        var user: String?
        /// The state's compact JSON.
        var state: [UInt8]
    }

    private struct Contents {
        var entries: [String: Entry] = [:]
        /// Sessions whose entry changed (set or cleared) since the last broadcast, in order.
        var changed: [String] = []
        var flushScheduled = false
        /// The count the last broadcast carried, when it carried only a count.
        var broadcastCount: Int?
    }

    /// Entries listed in snapshots and broadcasts; beyond, counts only.
    let maxListed: Int
    private let contents = Locked(Contents())

    init(maxListed: Int) {
        self.maxListed = maxListed
    }

    /// What a `set` did.
    struct Change {
        /// The entry changed.
        var changed: Bool
        /// A broadcast must be scheduled now (the first change since the last one).
        var scheduleBroadcast: Bool
    }

    /// Sets (or, with nil, clears) `session`'s entry.
    @discardableResult
    func set(_ session: String, user: String?, state: [UInt8]?) -> Change {
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

    /// The frame that broadcasts the changes since the last one, or nil when none.
    func takeBroadcast(_ address: String) -> OutboundMessage? {
        contents.withLock { contents -> OutboundMessage? in
            contents.flushScheduled = false
            let changed = contents.changed
            contents.changed = []
            guard !changed.isEmpty else { return nil }
            var writer = JSONWriter()
            writer.writeRaw(#"{"type":"presence","reactor":"#)
            writer.writeString(address)
            if contents.entries.count > maxListed {
                // Only the count: nothing to say when it did not change.
                guard contents.broadcastCount != contents.entries.count else { return nil }
                contents.broadcastCount = contents.entries.count
                writer.writeRaw(#","presenceCount":"#)
                writer.writeInt(contents.entries.count)
            } else {
                // Back under the limit after counts: every entry, so that members can list
                // them again; otherwise the changes.
                let listedAgain = contents.broadcastCount != nil
                contents.broadcastCount = nil
                let joins = listedAgain
                    ? contents.entries.keys.sorted() : changed.filter { contents.entries[$0] != nil }
                let leaves = listedAgain ? [] : changed.filter { contents.entries[$0] == nil }
                writer.writeRaw(#","joins":{"#)
                for (index, session) in joins.enumerated() {
                    if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                    writer.writeString(session)
                    writer.writeByte(UInt8(ascii: ":"))
                    Self.write(contents.entries[session]!, into: &writer)
                }
                writer.writeRaw(#"},"leaves":["#)
                for (index, session) in leaves.enumerated() {
                    if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                    writer.writeString(session)
                }
                writer.writeByte(UInt8(ascii: "]"))
            }
            writer.writeByte(UInt8(ascii: "}"))
            return OutboundMessage(writer.bytes)
        }
    }

    /// `,"presence":{…}` (`{}` when nobody set a presence) or `,"presenceCount":N`: the
    /// members every snapshot and `resumed` carry (PROTOCOL.md "Presence").
    func snapshotMembers() -> [UInt8] {
        contents.withLock { contents in
            var writer = JSONWriter()
            if contents.entries.count > maxListed {
                writer.writeRaw(#","presenceCount":"#)
                writer.writeInt(contents.entries.count)
                return writer.bytes
            }
            writer.writeRaw(#","presence":{"#)
            for (index, session) in contents.entries.keys.sorted().enumerated() {
                if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                writer.writeString(session)
                writer.writeByte(UInt8(ascii: ":"))
                Self.write(contents.entries[session]!, into: &writer)
            }
            writer.writeByte(UInt8(ascii: "}"))
            return writer.bytes
        }
    }

    /// Entries held.
    var count: Int { contents.withLock { $0.entries.count } }

    private static func write(_ entry: Entry, into writer: inout JSONWriter) {
        writer.writeRaw(#"{"user":"#)
        if let user = entry.user { writer.writeString(user) } else { writer.writeRaw("null") }
        writer.writeRaw(#","state":"#)
        writer.bytes.append(contentsOf: entry.state)
        writer.writeByte(UInt8(ascii: "}"))
    }
}
