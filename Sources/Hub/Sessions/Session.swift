import Transport

/// What the hub knows about one connection: its outbox, the reactors it joined and its
/// action budget. Touched only under the hub's lock.
struct Session {
    let id: ConnectionID
    let output: ConnectionOutput
    /// Joined instances by address.
    var joined: [ReactorAddress: InstanceSlot] = [:]
    var bucket: TokenBucket

    init(output: ConnectionOutput, bucket: TokenBucket) {
        self.id = output.id
        self.output = output
        self.bucket = bucket
    }
}
