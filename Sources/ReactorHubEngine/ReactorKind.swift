package import ReactorHubStore
package import ReactorHubProtocol
package import ReactorHubJSON
package import ReactorHubLogging
package import Reactor

/// A registered reactor kind: its name, its description for `hello`, and how to make an
/// instance of it. Built by `ReactorRegistry.register`, which keeps the reactor type.
package struct ReactorKind: Sendable {
    /// Everything an instance needs from the hub.
    package struct InstanceContext: Sendable {
        package var stream: StreamID
        package var delivery: Delivery
        /// How every message is written.
        package var codec: any MessageCodec
        package var metrics: HubMetrics
        package var historyCapacity: Int
        package var historyBytes: Int
        package var presenceMaxListed: Int
        /// Actions waiting and the senders paused for them (backpressure).
        package var load: ActionLoad
        package var store: any StateStore
        package var durableAcks: Bool
        package var logger: Logger
        /// How long and how many action ids each instance remembers.
        package var dedupeWindow: Duration = .seconds(300)
        package var dedupeEntries = 10_000
        /// The instance's name in a trap report (`KIND/ID`).
        package var trapLabel: TrapLabel?
        /// The kind's actions' names for trap reports.
        package var actionLabels = ActionLabels()
        /// Start from the kind's initial state under a new epoch, whatever the store
        /// holds (an admin reset).
        package var fresh = false
        /// Who hears the instance's events (pulses, actions); nil: nobody.
        package var events: (any InstanceEventSink)?
    }

    package let name: String
    /// `{"actions":{…},"pulses":[…]}`, generated from the reactor's types.
    package let description: JSONValue
    /// Its actions' names for trap reports, made once per name.
    package let actionLabels = ActionLabels()
    package let makeInstance: @Sendable (ReactorAddress, InstanceContext) throws -> any HubInstance
    /// The instance of an address on a host (a cluster's node), made and started there.
    package let makeHosted: @Sendable (any InstanceHost, ReactorAddress, InstanceContext) async -> Result<any HubInstance, ProtocolError>
}
