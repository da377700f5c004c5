import ReactorHubProtocol
import ReactorHubJSON

/// The engine's record of one joined reactor: its replica (the confirmed state), the
/// predictions of this client's pending actions and the shown state they make, its join in
/// flight, who waits for its first state, and the pulses counted so far. Touched by the
/// engine actor only.
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
    /// The copy held did not match a checksum: reported once, until a snapshot replaces it.
    var diverged = false
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
    /// The prediction of each pending action that has one, by action id.
    var predictions: [String: Prediction] = [:]
    /// The shown state last published, and how many actions were pending then.
    private var shown: (state: JSONValue, pending: Int)?

    /// A pending action's effect on a state (JSON in, JSON out); nil: no prediction.
    typealias Prediction = @Sendable (JSONValue) -> JSONValue?

    init(address: String) {
        self.address = address
        self.publisher = ReplicaPublisher(address: address)
    }

    var kind: String { String(address.prefix { $0 != "/" }) }

    /// Publishes a new revision: the confirmed state, and the shown state recomputed from it
    /// and `pending` (this reactor's pending actions, in sending order).
    func publish(_ cause: Revision.Cause, pending: [ActionLedger.Entry]) {
        guard let confirmed = replica.state, let epoch = replica.epoch else { return }
        var state = confirmed
        for action in pending {
            if let predict = predictions[action.id], let predicted = predict(state) {
                state = predicted
            }
        }
        // A patch or snapshot with nothing pending before or after always shows something new;
        // otherwise only a shown state that differs (a prediction, a rollback) is a change.
        let changesShown: Bool
        if let last = shown, last.pending > 0 || !pending.isEmpty || cause == .prediction {
            changesShown = last.state != state
        } else {
            changesShown = true
        }
        shown = (state, pending.count)
        publisher.publish(
            state: state, confirmed: confirmed, pendingCount: pending.count, version: replica.version, epoch: epoch,
            pulses: pulses, cause: cause, changesShown: changesShown
        )
    }

    /// Publishes the shown state again with new pulse counts.
    func publishPulse() {
        guard let confirmed = replica.state, let epoch = replica.epoch else { return }
        let (state, pending) = shown ?? (confirmed, 0)
        publisher.publish(
            state: state, confirmed: confirmed, pendingCount: pending, version: replica.version, epoch: epoch,
            pulses: pulses, cause: .pulse, changesShown: true
        )
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
