import ReactorHubLocking

/// Where a node's Redis links connect: the master as this node knows it now. With a fixed
/// address (`cluster.redis`) it never changes. With Sentinel (`SentinelWatcher`) it is the
/// server a majority of the sentinels names, and nothing at all between a `+switch-master`
/// and that majority naming the new one: meanwhile every command fails at once with
/// `.connection`, so nothing is written to the old master.
///
/// Every change moves every link: each link registers a `LinkInterrupter`, and a change
/// shuts its socket down (a command blocked on a frozen server returns at once) and wakes
/// its thread, which drops the connection and connects to the new master (checking with
/// ROLE that it is one) or waits for one to be named.
public final class MasterDirectory: Sendable {
    /// The server links connect to, and the serial of this naming: a link whose connection
    /// was made under another serial drops it.
    public struct Target: Sendable, Hashable {
        /// The master's address.
        public let endpoint: RedisEndpoint
        /// Grows with every change of target (withdrawals included).
        public let serial: Int
    }

    private struct State {
        var target: Target?
        var serial = 0
        var missing: String
        var links: [Int: LinkInterrupter] = [:]
        var nextLink = 0
        var moves = 0
        var everNamed = false
    }

    /// Whether links check with ROLE that the server is a master before they use a
    /// connection, and on idle links (false for a sentinel's own links).
    public let expectsMaster: Bool
    private let state: Locked<State>

    /// A directory with no master yet; `reason` says why (`/readyz`).
    public init(waitingFor reason: String, expectsMaster: Bool = true) {
        self.expectsMaster = expectsMaster
        state = Locked(State(missing: reason))
    }

    /// A directory whose target is `endpoint` for good (`cluster.redis`, a sentinel).
    public static func fixed(_ endpoint: RedisEndpoint, expectsMaster: Bool = true) -> MasterDirectory {
        let directory = MasterDirectory(waitingFor: "", expectsMaster: expectsMaster)
        directory.name(endpoint)
        return directory
    }

    /// The master links connect to now; nil while none is named.
    public var target: Target? {
        state.withLock { $0.target }
    }

    /// The serial now (that of `target`, or of the withdrawal).
    var serial: Int {
        state.withLock { $0.serial }
    }

    /// Why there is no master now; nil while there is one.
    public var missingReason: String? {
        state.withLock { $0.target == nil ? $0.missing : nil }
    }

    /// How many times the master changed after the first was named.
    public var moves: Int {
        state.withLock { $0.moves }
    }

    /// Names `endpoint` the master; returns false (nothing moves) when it already is.
    @discardableResult
    public func name(_ endpoint: RedisEndpoint) -> Bool {
        let links = state.withLock { state -> [LinkInterrupter]? in
            guard state.target?.endpoint != endpoint else { return nil }
            if state.everNamed { state.moves += 1 }
            state.everNamed = true
            state.serial += 1
            state.target = Target(endpoint: endpoint, serial: state.serial)
            return Array(state.links.values)
        }
        links?.forEach { $0.interrupt() }
        return links != nil
    }

    /// No master until the next `name`: every link drops its connection now.
    public func withdraw(_ reason: String) {
        let links = state.withLock { state -> [LinkInterrupter] in
            state.missing = reason
            guard state.target != nil else { return [] }
            state.serial += 1
            state.target = nil
            return Array(state.links.values)
        }
        links.forEach { $0.interrupt() }
    }

    /// Registers a link to interrupt on every change; returns its ticket for `unregister`.
    func register(_ link: LinkInterrupter) -> Int {
        state.withLock { state in
            state.nextLink += 1
            state.links[state.nextLink] = link
            return state.nextLink
        }
    }

    func unregister(_ ticket: Int) {
        state.withLock { _ = $0.links.removeValue(forKey: ticket) }
    }
}
