public import ReactorHubJSON
import ReactorHubLocking

/// One connection's presence in a reactor (PROTOCOL.md "Presence"): who (the token's
/// `sub`, or nil) and what it said about itself.
public struct PresenceEntry: Sendable, Equatable {
    /// The connection's session (its `hello.session`).
    public let session: String
    /// The user, when the connection authenticated.
    public let user: String?
    /// The state it set.
    public let state: JSONValue
}

/// Everyone's presence in one reactor as this client last heard it: the entries, or only
/// their count when the server lists no more than `presence.maxListed`.
public struct PresenceView: Sendable, Equatable {
    /// The entries by session (empty when only the count is known).
    public var entries: [String: PresenceEntry] = [:]
    /// How many connections have a presence; nil when the entries are listed.
    public var count: Int?

    /// No one.
    public init() {}

    /// The number of connections with a presence.
    public var total: Int { count ?? entries.count }

    /// From a snapshot's or `resumed`'s members: `presence` or `presenceCount`, or none.
    init(snapshot object: JSONObject) {
        if let count = object["presenceCount"]?.intValue {
            self.count = count
        } else if case .object(let listed)? = object["presence"] {
            for (session, value) in listed {
                entries[session] = Self.entry(session, value)
            }
        }
    }

    /// Applies a `presence` broadcast: joins set, leaves remove, or a count.
    mutating func apply(_ object: JSONObject) {
        if let count = object["presenceCount"]?.intValue {
            self.entries = [:]
            self.count = count
            return
        }
        count = nil
        if case .object(let joins)? = object["joins"] {
            for (session, value) in joins {
                entries[session] = Self.entry(session, value)
            }
        }
        if case .array(let leaves)? = object["leaves"] {
            for case .string(let session) in leaves {
                entries[session] = nil
            }
        }
    }

    private static func entry(_ session: String, _ value: JSONValue) -> PresenceEntry {
        PresenceEntry(session: session, user: value["user"]?.stringValue, state: value["state"] ?? .null)
    }
}

/// Where the engine publishes a reactor's presence and its handles read it.
final class PresencePublisher: Sendable {
    private struct Contents {
        var view = PresenceView()
        var continuations: [Int: AsyncStream<PresenceView>.Continuation] = [:]
        var next = 0
    }

    private let contents = Locked(Contents())

    var view: PresenceView { contents.withLock { $0.view } }

    func publish(_ view: PresenceView) {
        let continuations = contents.withLock { contents -> [AsyncStream<PresenceView>.Continuation] in
            contents.view = view
            return Array(contents.continuations.values)
        }
        for continuation in continuations {
            continuation.yield(view)
        }
    }

    /// A stream of views, the latest only when the reader lags; starts with the current one.
    func stream() -> AsyncStream<PresenceView> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenceView.self, bufferingPolicy: .bufferingNewest(1))
        let current = contents.withLock { contents -> PresenceView in
            contents.next += 1
            let token = contents.next
            contents.continuations[token] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.contents.withLock { $0.continuations.removeValue(forKey: token) }
            }
            return contents.view
        }
        continuation.yield(current)
        return stream
    }

    func finish() {
        let continuations = contents.withLock { contents -> [AsyncStream<PresenceView>.Continuation] in
            defer { contents.continuations = [:] }
            return Array(contents.continuations.values)
        }
        for continuation in continuations {
            continuation.finish()
        }
    }
}
