/// The settings the cluster primitives share: this node's id, the key prefix and the
/// lengths of leases, history and deduplication (config `cluster`, `history`, `actions`).
public struct ClusterOptions: Sendable, Hashable {
    /// This node's id (`cluster.nodeId`, random per start when null). Must not be empty;
    /// it may contain `:` (lease tokens are split at the last one).
    public var nodeID: String
    /// The first part of every key (`cluster.keyPrefix`).
    public var keyPrefix = "rh"
    /// How long a lease or a node's heartbeat lasts without renewal (`cluster.leaseMs`).
    public var lease: Duration = .milliseconds(5000)
    /// How many versions each instance's log keeps (`history.patches`).
    public var historySize = 256
    /// How long an action id's reply is remembered (`actions.dedupeSeconds`).
    public var dedupeWindow: Duration = .seconds(300)
    /// At most this many remembered ids per instance (`actions.dedupeEntries`).
    public var dedupeEntries = 10_000
    /// Each node's inbox stream keeps about this many entries (XADD MAXLEN ~).
    public var inboxLength = 10_000
    /// Replicas `WAIT` must confirm a commit reached before its entries (and the acks they
    /// carry) are published (`cluster.minReplicas`); 0: published as they are written.
    public var minReplicas = 0

    /// Options for node `nodeID` with the documented defaults.
    public init(nodeID: String) {
        self.nodeID = nodeID
    }

    /// How often leases and the heartbeat are renewed: a third of the lease, so that two
    /// renewals may fail before it lapses.
    public var renewInterval: Duration {
        lease / 3
    }

    /// The key layout under `keyPrefix`.
    public var keys: ClusterKeys {
        ClusterKeys(prefix: keyPrefix)
    }
}
