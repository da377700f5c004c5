import Transport

/// What the hub knows about one connection: the reactors it joined and its action budget.
/// Touched only under the hub's lock.
struct Session {
    let id: ConnectionID
    /// Joined instances by address, in join order.
    var joined: [ReactorAddress: any HubInstance] = [:]
    var bucket: TokenBucket

    init(id: ConnectionID, bucket: TokenBucket) {
        self.id = id
        self.bucket = bucket
    }
}
