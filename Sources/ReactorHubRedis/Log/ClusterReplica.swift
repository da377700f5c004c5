import ReactorHubEngine
import ReactorHubProtocol

/// What the cluster node asks of each clustered instance, whatever its reactor type
/// (`ReplicaInstance`).
protocol ClusterReplica: HubInstance {
    /// `KIND/ID`, as the Redis keys name it.
    var addressText: String { get }
    /// Whether this node owns the instance now.
    var isOwned: Bool { get }
    /// The lease holder as last seen (by the sweep or a forward); nil when unknown.
    var knownHolder: String? { get }
    /// Subscribes, reads the instance (creating it when nobody has), takes it when free.
    func start() async throws(ProtocolError)
    /// A committed entry from the instance's channel (on the subscriber's thread).
    func received(_ entry: LogEntry)
    /// A presence notice of another node (or this one) from the instance's channel.
    func presenceNotice(_ notice: PresenceStore.Notice)
    /// The pub/sub link came back: what was published meanwhile is read from the stream;
    /// `done` runs once it has been (or the replica ended).
    func linkRecovered(done: @escaping @Sendable () -> Void)
    /// Applies a forwarded action when this node owns the instance; false otherwise.
    func accept(_ action: ForwardedAction) -> Bool
    /// The node this replica believed the owner refused an action: look it up again.
    func forgetHolder()
    /// The owner released the lease (a hand-over): forget it and try to take the lease now.
    func leaseReleased()
    /// The links moved to another Redis master: an owner checks at once that its epoch may
    /// go on there.
    func masterMoved()
    /// The heartbeat could not renew `lease`: stop owning.
    func leaseLost(_ lease: Lease)
    /// Commits what is queued, writes a snapshot, releases the lease (SIGTERM, eviction).
    func handOver() async
    /// Periodic: repair or reload the replica, take the lease when it is free.
    func sweep() async
}
