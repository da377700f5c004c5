import ReactorHubProtocol

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
    /// The upgrade's path and the peer's address (admin listing).
    let path: String
    let peerAddress: String

    init(output: ConnectionOutput, bucket: TokenBucket, identity: SessionIdentity, path: String = "/ws", peerAddress: String = "") {
        self.id = output.id
        self.output = output
        self.bucket = bucket
        self.identity = identity
        self.path = path
        self.peerAddress = peerAddress
    }
}
