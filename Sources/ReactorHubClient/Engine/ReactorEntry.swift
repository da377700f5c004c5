import ReactorHubProtocol
import ReactorHubJSON

/// The engine's record of one joined reactor: its replica, its join in flight, who waits
/// for its first state, and the pulses counted so far. Touched by the engine actor only.
final class ReactorEntry {
    let address: String
    let publisher: ReplicaPublisher
    var replica = Replica()
    /// The `ref` of the join in flight (its reply is the one that counts).
    var joinRef: Int?
    /// The connection on which the server last answered a join: actions go out only then.
    var joinedOn: Int?
    /// A re-join for a gap or a broken patch is on its way.
    var resyncing = false
    /// Handles that use the entry; it is left when the last one leaves.
    var subscribers = 0
    /// Joins waiting for the first state.
    var readyWaiters: [CheckedContinuation<Result<Void, HubClientError>, Never>] = []
    /// The pulses received since the join, by name.
    var pulses: [String: FiredPulse] = [:]
    /// Everyone's presence, and the presence this client set (set again after a
    /// reconnect: a presence belongs to a connection).
    var presence: PresencePublisher { publisher.presence }
    var ownPresence: JSONValue?

    init(address: String) {
        self.address = address
        self.publisher = ReplicaPublisher(address: address)
    }

    var kind: String { String(address.prefix { $0 != "/" }) }

    /// Publishes the replica's state as a new revision.
    func publish(_ cause: Revision.Cause) {
        guard let state = replica.state, let epoch = replica.epoch else { return }
        publisher.publish(state: state, version: replica.version, epoch: epoch, pulses: pulses, cause: cause)
    }

    /// Resumes every join waiting for the first state.
    func resolveWaiters(_ result: Result<Void, HubClientError>) {
        let waiters = readyWaiters
        readyWaiters = []
        for waiter in waiters {
            waiter.resume(returning: result)
        }
    }

    /// Whether `address` is a reactor address `KIND/ID` (PROTOCOL.md, "Names").
    static func isValidAddress(_ address: String) -> Bool {
        ReactorAddress(address) != nil
    }
}
