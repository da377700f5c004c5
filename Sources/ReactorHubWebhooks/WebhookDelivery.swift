/// One event on its way to one receiver: its id (the same on every attempt), the reactor
/// whose lane it waits in, its body, and how it has fared.
struct WebhookDelivery: Sendable, Equatable {
    /// `X-ReactorHub-Id`.
    var id: String
    /// The reactor (`KIND/ID`): events of one reactor reach a receiver in order.
    var reactor: String
    /// The JSON body.
    var body: [UInt8]
    /// Attempts made so far.
    var attempts = 0
    /// Not tried again before this (a retry's wait).
    var notBefore: ContinuousClock.Instant?
    /// Arrival order, across reactors.
    var sequence: UInt64 = 0
}
