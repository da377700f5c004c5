import Reactor
import ReactorHubProtocol

/// What the hub knows about one connection: its outbox, the reactors it joined and its
/// action budget. Touched only under the hub's lock.
///
/// Kept small (128 bytes): the hub's table holds it inline, in up to twice as many slots as
/// there are sessions (BENCHMARKS.md, "Idle memory per connection (issue 38)").
struct Session {
    var id: ConnectionID { output.id }
    let output: ConnectionOutput
    /// Joined instances by address.
    var joined = JoinedSlots()
    var bucket: TokenBucket
    /// The join budget (`limits.joinsPerSecond`, `limits.joinBurst`).
    var joinBucket: TokenBucket
    /// Who the connection is and what it may do.
    var identity: SessionIdentity
    /// The upgrade's path and the peer's address (admin listing).
    let path: String
    let peerAddress: String
    /// An event stream (API.md): one reactor, no messages in.
    let isStream: Bool
    /// `Sender.session` of this connection's actions (`hello.session`), written once.
    let senderSession: String

    /// Who this connection's actions come from (on node `node`), as its identity now stands.
    func sender(node: String?) -> Sender {
        identity.sender(session: senderSession, node: node, transport: isStream ? .http : .webSocket)
    }

    /// Whom the instances this session creates count against (`limits.maxInstancesPerUser`):
    /// its user, or its peer address when anonymous.
    var quotaKey: String {
        identity.quotaKey(peer: peerAddress)
    }

    init(
        output: ConnectionOutput, bucket: TokenBucket, joinBucket: TokenBucket, identity: SessionIdentity, path: String = "/ws",
        peerAddress: String = "", isStream: Bool = false, senderSession: String
    ) {
        self.isStream = isStream
        self.senderSession = senderSession
        self.output = output
        self.bucket = bucket
        self.joinBucket = joinBucket
        self.identity = identity
        self.path = path
        self.peerAddress = peerAddress
    }
}
