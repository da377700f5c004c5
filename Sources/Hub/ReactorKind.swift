import JSON
import Logging
import Reactor
import Transport

/// A registered reactor kind: its name, its description for `hello`, and how to make an
/// instance of it. Built by `ReactorRegistry.register`, which keeps the reactor type.
struct ReactorKind: Sendable {
    /// Everything an instance needs from the hub.
    struct InstanceContext: Sendable {
        var stream: StreamID
        var channel: any OutboundChannel
        var historyCapacity: Int
        /// The largest patch frame a burst is combined into (a part of the slow-consumer
        /// threshold, so that one combined frame never counts as a backlog by itself).
        var coalescingLimit: Int
        var store: any StateStore
        var durableAcks: Bool
        var logger: Logger
    }

    let name: String
    /// `{"actions":{…},"pulses":[…]}`, generated from the reactor's types.
    let description: JSONValue
    let makeInstance: @Sendable (ReactorAddress, InstanceContext) throws -> any HubInstance
}
