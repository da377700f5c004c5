import ReactorHubEngine
import ReactorHubProtocol
import ReactorHubJSON

/// A presence change of this node on its way to Redis.
enum PresenceWrite: Sendable {
    case set(session: String, entry: [UInt8])
    case remove(session: String)

    var session: String {
        switch self {
        case .set(let session, _), .remove(let session): session
        }
    }
}

/// The other nodes' sessions held in a replica's presence room.
struct RemotePresence: Sendable {
    /// Session → the node it is connected to.
    var sessions: [String: String] = [:]
    /// A read of every node's entries is under way.
    var reading = false
    /// Sessions a notice changed while the read was under way: the read's (older) view
    /// of them is ignored.
    var noticed: Set<String> = []
}

/// Presence across nodes (PROTOCOL.md "Presence", CLUSTER.md): each node writes its own
/// connections' entries to its hash of the instance (`PresenceStore`, kept alive by the
/// node's heartbeat for one lease) and announces each change on the instance's channel;
/// every node's room holds all the entries and broadcasts the changes to its subscribers,
/// coalesced as on one daemon. A node that dies stops renewing its hash: its entries
/// vanish from Redis within `leaseMs`, and the next sweep (every `leaseMs/3`) of each
/// replica that lists them sends their leaves.
extension ReplicaInstance {
    func setPresence(_ output: ConnectionOutput, user: String?, state: [UInt8]?, ref: Ref?) {
        let session = node.session(output.id)
        if view.setPresence(session, user: user, state: state) {
            if let state {
                presenceWrites.yield(.set(session: session, entry: Self.entry(user: user, state: state)))
            } else {
                presenceWrites.yield(.remove(session: session))
            }
        }
        if let ref {
            let version = view.position.version
            view.reply(context.codec.ack(addressText, ref: ref, version: version, applied: version), to: output)
        }
    }

    /// A local connection left or closed: its entry leaves, here and in Redis.
    func clearPresence(of id: ConnectionID) {
        let session = node.session(id)
        guard view.setPresence(session, user: nil, state: nil) else { return }
        presenceWrites.yield(.remove(session: session))
    }

    func presenceNotice(_ notice: PresenceStore.Notice) {
        guard notice.node != node.id else { return }
        let decoded = notice.entry.flatMap(Self.decode)
        guard notice.entry == nil || decoded != nil else {
            logger.warning("unreadable presence entry", metadata: ["from": notice.node, "session": notice.session])
            return
        }
        remotePresence.withLock { remote in
            if decoded == nil { remote.sessions[notice.session] = nil } else { remote.sessions[notice.session] = notice.node }
            if remote.reading { remote.noticed.insert(notice.session) }
        }
        view.setPresence(notice.session, user: decoded?.user, state: decoded?.state)
    }

    /// Reads every node's entries and makes the room's remote entries match: new ones
    /// join, those whose node's hash expired leave. Sessions announced meanwhile keep
    /// what their notice said.
    func reconcilePresence() async {
        remotePresence.withLock { remote in
            remote.reading = true
            remote.noticed = []
        }
        let byNode: [String: [String: [UInt8]]]
        do {
            byNode = try await node.presence.entries(of: addressText)
        } catch {
            remotePresence.withLock { $0.reading = false }
            logger.debug("presence not read", metadata: ["error": error.message])
            return
        }
        var read: [String: (node: String, user: String?, state: [UInt8])] = [:]
        for (other, entries) in byNode where other != node.id {
            for (session, bytes) in entries {
                if let entry = Self.decode(bytes) { read[session] = (other, entry.user, entry.state) }
            }
        }
        let (joins, leaves) = remotePresence.withLock { remote in
            defer {
                remote.reading = false
                remote.noticed = []
            }
            let joins = read.filter { !remote.noticed.contains($0.key) }
            let leaves = remote.sessions.keys.filter { read[$0] == nil && !remote.noticed.contains($0) }
            for session in leaves { remote.sessions[session] = nil }
            for (session, entry) in joins { remote.sessions[session] = entry.node }
            return (joins, leaves)
        }
        for (session, entry) in joins {
            view.setPresence(session, user: entry.user, state: entry.state)
        }
        for session in leaves {
            view.setPresence(session, user: nil, state: nil)
        }
    }

    /// Writes this node's changes in order, the last of each session's run only.
    func presenceWriteLoop() async {
        while let writes = await presenceWrites.next() {
            var latest: [String: PresenceWrite] = [:]
            var order: [String] = []
            for write in writes {
                if latest.updateValue(write, forKey: write.session) == nil { order.append(write.session) }
            }
            for session in order {
                do {
                    switch latest[session]! {
                    case .set(_, let entry): try await node.presence.set(addressText, session: session, entry: entry)
                    case .remove: try await node.presence.remove(addressText, session: session)
                    }
                } catch {
                    logger.warning("presence not written", metadata: ["session": session, "error": error.message])
                }
            }
        }
    }

    /// `{"user":U,"state":S}`, as Redis keeps an entry.
    static func entry(user: String?, state: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeRaw(#"{"user":"#)
        if let user { writer.writeString(user) } else { writer.writeNull() }
        writer.writeRaw(#","state":"#)
        writer.bytes.append(contentsOf: state)
        writer.writeByte(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// The user and the state's bytes of an entry written by `entry(user:state:)`.
    static func decode(_ bytes: [UInt8]) -> (user: String?, state: [UInt8])? {
        guard let parsed = try? JSONParser().parseWithMemberRanges(bytes), case .object(let object) = parsed.value,
              case .object? = object["state"], let range = parsed.memberRanges["state"]
        else { return nil }
        switch object["user"] {
        case .string(let user)?: return (user, Array(bytes[range]))
        case .null?: return (nil, Array(bytes[range]))
        default: return nil
        }
    }
}
