import Transport

/// What the hub knows about one connection: its outbox, the reactors it joined and its
/// action budget. Touched only under the hub's lock.
struct Session {
    let id: ConnectionID
    let output: ConnectionOutput
    /// Joined instances by address.
    var joined: [ReactorAddress: InstanceSlot] = [:]
    var bucket: TokenBucket
    /// Who the connection is and what it may do.
    var identity: SessionIdentity

    init(output: ConnectionOutput, bucket: TokenBucket, identity: SessionIdentity) {
        self.id = output.id
        self.output = output
        self.bucket = bucket
        self.identity = identity
    }
}
