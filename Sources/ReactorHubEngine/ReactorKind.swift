import ReactorHubStore
import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubLogging
import Reactor

/// A registered reactor kind: its name, its description for `hello`, and how to make an
/// instance of it. Built by `ReactorRegistry.register`, which keeps the reactor type.
struct ReactorKind: Sendable {
    /// Everything an instance needs from the hub.
    struct InstanceContext: Sendable {
        var stream: StreamID
        var delivery: Delivery
        /// How every message is written.
        var codec: any MessageCodec
        var metrics: HubMetrics
        var historyCapacity: Int
        var historyBytes: Int
        var presenceMaxListed: Int
        /// Actions waiting and the senders paused for them (backpressure).
        var load: ActionLoad
        var store: any StateStore
        var durableAcks: Bool
        var logger: Logger
        /// How long and how many action ids each instance remembers.
        var dedupeWindow: Duration = .seconds(300)
        var dedupeEntries = 10_000
        /// Start from the kind's initial state under a new epoch, whatever the store
        /// holds (an admin reset).
        var fresh = false
    }

    let name: String
    /// `{"actions":{…},"pulses":[…]}`, generated from the reactor's types.
    let description: JSONValue
    let makeInstance: @Sendable (ReactorAddress, InstanceContext) throws -> any HubInstance
    /// The clustered instance of an address (`ReplicaInstance`), not started yet.
    let makeReplica: @Sendable (ReactorAddress, InstanceContext, ClusterNode) -> any ClusterReplica
}
