/// Where everything lives in Redis. An instance's keys share the hash tag `{KIND/ID}`, so
/// that a Redis Cluster would keep them in one slot and its scripts stay single-slot.
///
/// ```
/// PREFIX:{KIND/ID}:lease           string NODE:GEN, PX lease          (owner + fencing token)
/// PREFIX:{KIND/ID}:gen             integer, INCR per acquisition      (the fencing generation)
/// PREFIX:{KIND/ID}:meta            hash epoch, version                (last committed version)
/// PREFIX:{KIND/ID}:log             stream, ID VERSION-0 per patch, VERSION-N for replies
/// PREFIX:{KIND/ID}:snap            hash epoch, version, state         (state JSON bytes)
/// PREFIX:{KIND/ID}:ids             hash action id -> reply bytes
/// PREFIX:{KIND/ID}:ids:at          sorted set action id -> Redis time (ms) it was recorded
/// PREFIX:{KIND/ID}:presence:NODE   hash session -> presence bytes, PEXPIRE lease (heartbeat)
/// PREFIX:{KIND/ID}:presence:nodes  set of nodes that wrote presence
/// PREFIX:{KIND/ID}:live            pub/sub channel of committed entries
/// PREFIX:node:NODE                 string, PX lease                   (the node is alive)
/// PREFIX:node:NODE:inbox           stream of actions forwarded to NODE
/// PREFIX:nodes                     sorted set NODE -> lease deadline (Redis time, ms)
/// PREFIX:probe:NODE                pub/sub channel of NODE's delivery probe
/// PREFIX:wait                      pub/sub channel nobody hears (the write before a WAIT)
/// ```
public struct ClusterKeys: Sendable, Hashable {
    /// The first part of every key.
    public let prefix: String

    /// The layout under `prefix` (`rh` by default).
    public init(prefix: String) {
        self.prefix = prefix
    }

    /// The keys of one instance, `address` being `KIND/ID`.
    public func instance(_ address: String) -> InstanceKeys {
        InstanceKeys(base: "\(prefix):{\(address)}")
    }

    /// The key that exists while `node` renews its heartbeat.
    public func node(_ node: String) -> String {
        "\(prefix):node:\(node)"
    }

    /// The stream of actions forwarded to `node`.
    public func inbox(_ node: String) -> String {
        "\(prefix):node:\(node):inbox"
    }

    /// The channel `node`'s delivery probe publishes on and listens to.
    public func probe(_ node: String) -> String {
        "\(prefix):probe:\(node)"
    }

    /// A channel nobody listens to: a PUBLISH there is the write that lets `WAIT` vouch for
    /// a connection's earlier writes.
    public var wait: String {
        "\(prefix):wait"
    }

    /// The sorted set of nodes by lease deadline.
    public var nodes: String {
        "\(prefix):nodes"
    }
}

/// The keys of one instance.
public struct InstanceKeys: Sendable, Hashable {
    /// `PREFIX:{KIND/ID}`, the common start.
    public let base: String

    /// The lease (`NODE:GEN`).
    public var lease: String { "\(base):lease" }
    /// The fencing generation counter.
    public var generation: String { "\(base):gen" }
    /// Epoch and last committed version.
    public var meta: String { "\(base):meta" }
    /// The history stream.
    public var log: String { "\(base):log" }
    /// The latest snapshot.
    public var snapshot: String { "\(base):snap" }
    /// Remembered action ids and their replies.
    public var actionIDs: String { "\(base):ids" }
    /// When each remembered id was recorded.
    public var actionTimes: String { "\(base):ids:at" }
    /// The pub/sub channel of committed entries.
    public var channel: String { "\(base):live" }
    /// The presence entries written by `node`.
    public func presence(_ node: String) -> String { "\(base):presence:\(node)" }
    /// The nodes that wrote presence entries.
    public var presenceNodes: String { "\(base):presence:nodes" }
}
