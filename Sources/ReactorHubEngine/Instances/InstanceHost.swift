package import ReactorHubProtocol
package import Reactor

/// Where a daemon's instances live when it shares them with other daemons (a cluster,
/// `ReactorHubRedis`): the hub asks the host for each instance instead of making it on
/// the in-process log, names its sessions after the node, and has the host hand its
/// leases over when it drains. Without a host, a daemon is a cluster of one.
package protocol InstanceHost: AnyObject, Sendable {
    /// This node's id (`hello.node`).
    var id: String { get }
    /// The session name of a connection of this node (`hello.session`, presence keys).
    func session(_ id: ConnectionID) -> String
    /// The hub's delivery and codec, for the replies the host delivers itself.
    func attach(_ delivery: Delivery, codec: any MessageCodec)
    /// Makes and starts the instance of `address`, whose reactors `make` creates and whose
    /// restored states `restore` adjusts; called off the service thread.
    func makeInstance<R: Reactor>(
        _ make: @escaping @Sendable () -> R, restore: (@Sendable (R.State) -> R.State)?, address: ReactorAddress,
        context: ReactorKind.InstanceContext
    ) async -> Result<any HubInstance, ProtocolError> where R.Action: Decodable, R.State: Codable
    /// Commits what each owned instance has queued, snapshots it and releases its lease,
    /// so that another node takes it at once (the drain); later calls do nothing.
    func handOver() async
}
