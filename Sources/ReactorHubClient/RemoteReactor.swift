import Foundation
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubLogging
import Reactor

/// A reactor hosted by the hub, read like a local ReactorKit reactor: `currentState`,
/// `states`, `pulse(\.$x)`, and `send(_:)` for actions. `State` decodes from the state
/// the server sends; `Action` encodes to its wire form (`ActionEncoder`: through its
/// `Encodable` conformance, or by reflection for an enum that is only `Decodable`, as
/// reactors declare their actions).
///
/// Pulses are counted as they arrive: a `State` read from the reactor has each `@Pulse`
/// property at the number of times it fired since the join, with its last value, so
/// ReactorKit's `valueUpdatedCount` semantics hold on the mirror too.
///
/// With a `RemotePredictor`, this client's own actions show at once (CLIENTS.md
/// "Prediction"): `state` (and `currentState`, `states`) is the shown state, the confirmed
/// state with the pending actions predicted on top; `confirmedState` is the server's.
public final class RemoteReactor<State: Decodable & Sendable, Action: Sendable>: Sendable {
    /// The reactor's address, `KIND/ID`.
    public let address: String
    let hub: HubClient
    let publisher: ReplicaPublisher
    let pulseNames: [String]
    /// Puts an action in wire form (chosen by `HubClient.join` from `Action`'s conformances).
    let encodeAction: @Sendable (Action) throws(ActionEncodingError) -> JSONValue
    /// What this handle's actions are predicted with; nil: not predicted.
    public let predictor: RemotePredictor<State, Action>?
    private let decoded = Locked<(number: UInt64, state: State)?>(nil)
    private let decodedConfirmed = Locked<(number: UInt64, state: State)?>(nil)
    private let hasLeft = Locked(false)

    init(
        hub: HubClient,
        address: String,
        joined: ClientEngine.Joined,
        predictor: RemotePredictor<State, Action>?,
        encodeAction: @escaping @Sendable (Action) throws(ActionEncodingError) -> JSONValue
    ) {
        self.hub = hub
        self.address = address
        self.publisher = joined.publisher
        self.pulseNames = joined.pulseNames
        self.predictor = predictor
        self.encodeAction = encodeAction
    }

    deinit {
        let left = hasLeft.withLock { $0 }
        guard !left else { return }
        let engine = hub.engine
        let address = address
        Task { await engine.leave(address) }
    }

    /// Decodes the first state, so a join whose `State` does not fit fails at once.
    func validate() throws(HubClientError) {
        guard let revision = publisher.latest else {
            throw publisher.ending ?? HubClientError(.left, "\(address) has no state", reactor: address)
        }
        let state = try decode(revision)
        decoded.withLock { $0 = (revision.number, state) }
    }

    // MARK: State

    /// The latest revision the client holds: the shown and confirmed states as JSON, the
    /// confirmed version and epoch, the pending count.
    public var revision: Revision {
        // A joined reactor always has one; after it ended the last one stays readable.
        publisher.latest!
    }

    /// The version of the confirmed state.
    public var version: Int { revision.version }

    /// This client's actions on the reactor that are queued, sent, or acknowledged with their
    /// `applied` version not reached yet, predicted or not (CLIENTS.md "Prediction").
    public var pendingCount: Int { revision.pendingCount }

    /// The instance's epoch.
    public var epoch: String { revision.epoch }

    /// Why the reactor's streams ended: `left` (by this client, or by the server for lack of
    /// rights), `closed`, or the client's end (`unauthenticated` once the server revoked
    /// or expired a token the client cannot renew); nil while it is live.
    public var endReason: HubClientError? { publisher.ending }

    /// The shown state, readable from any thread: the confirmed state with this client's
    /// pending actions predicted on top, in sending order; the confirmed state itself when
    /// nothing is pending or nothing is predicted. (A state that fails to decode is logged
    /// and the last one that decoded is returned.)
    public var state: State {
        decodeCached(revision, json: \.state, cache: decoded)
    }

    /// The shown state (`state`), by ReactorKit's name.
    public var currentState: State { state }

    /// The server's state at `version`, without any prediction.
    public var confirmedState: State {
        decodeCached(revision, json: \.confirmedState, cache: decodedConfirmed)
    }

    private func decodeCached(_ revision: Revision, json: KeyPath<Revision, JSONValue>, cache: Locked<(number: UInt64, state: State)?>) -> State {
        if let cached = cache.withLock({ $0 }), cached.number >= revision.number {
            return cached.state
        }
        do {
            let state = try decode(revision, json: json)
            cache.withLock { current in
                if current == nil || current!.number < revision.number {
                    current = (revision.number, state)
                }
            }
            return state
        } catch {
            hub.logger.warning("a state does not decode; keeping the last one", metadata: ["reactor": address, "version": String(revision.version), "error": error.message])
            return cache.withLock { $0 }?.state ?? decoded.withLock { $0!.state }
        }
    }

    /// The current shown state, then each new one, keeping only the latest for a reader that
    /// falls behind (or never reads). A revision that changes neither the shown state nor
    /// the pulses (a pending count alone, a patch that was predicted) is not a new state.
    /// Ends when the reactor is left or the client closes.
    public var states: RemoteStates<State> {
        states(bufferingNewest: 1)
    }

    /// The current shown state, then each new one, keeping up to `limit` unread states (the
    /// oldest are dropped past that). `states` is `limit` 1.
    public func states(bufferingNewest limit: Int) -> RemoteStates<State> {
        RemoteStates(publisher: publisher, capacity: max(1, limit), changesOnly: true) { [self] revision in
            do {
                return try decode(revision)
            } catch {
                hub.logger.warning("a state does not decode; skipped", metadata: ["reactor": address, "version": String(revision.version), "error": "\(error)"])
                return nil
            }
        }
    }

    /// Every revision (shown and confirmed state as JSON, version, epoch, pending count,
    /// cause), pending changes included, keeping up to `limit` unread.
    public func revisions(bufferingNewest limit: Int = 1) -> RemoteStates<Revision> {
        RemoteStates(publisher: publisher, capacity: max(1, limit), changesOnly: false) { $0 }
    }

    /// Decodes the revision's shown state (`json`: or another of its states).
    func decode(_ revision: Revision, json: KeyPath<Revision, JSONValue> = \.state) throws(HubClientError) -> State {
        let state = revision[keyPath: json]
        if State.self == JSONValue.self {
            return state as! State
        }
        do {
            // A decoder with user info is slower on every value: only when a pulse fired.
            let decoder = revision.pulses.isEmpty
                ? JSONValueDecoder()
                : JSONValueDecoder(userInfo: [PulseSource.userInfoKey: Self.source(revision.pulses)])
            return try decoder.decode(State.self, from: state)
        } catch {
            throw HubClientError(.decodingFailed, "the state of \(address) does not decode as \(State.self): \(error)", reactor: address)
        }
    }

    static func source(_ pulses: [String: FiredPulse]) -> PulseSource {
        PulseSource(pulses.mapValues { fired in
            let value = fired.value
            return PulseSource.Fired(updateCount: fired.count) { type in
                try JSONValueDecoder().decode(type, from: value)
            }
        })
    }

    // MARK: Actions

    /// Sends `action` and returns the state version at which the server accepted it (the
    /// patches it causes follow). With a predictor, the shown state includes the action's
    /// prediction from the moment it is dispatched until the confirmed state includes the
    /// action. Throws the server's refusal (`unknown_action`, `invalid_action`, `forbidden`,
    /// `rate_limited`…) with its code and message, after the prediction was rolled back;
    /// `queue_full` when `maxQueuedActions` actions wait for the connection already; or
    /// `disconnected` when the connection was lost twice before the answer.
    @discardableResult
    public func send(_ action: Action) async throws(HubClientError) -> Int {
        try await dispatch(action).version
    }

    /// Sends `action` and returns the server's ack (`duplicate` when it answered a resend
    /// of an action it had already applied).
    public func dispatch(_ action: Action) async throws(HubClientError) -> ActionAck {
        let payload: JSONValue
        do {
            payload = try encodeAction(action)
        } catch {
            throw HubClientError(.encodingFailed, error.message, reactor: address)
        }
        var prediction: ReactorEntry.Prediction?
        if let predict = predictor?.predictJSON {
            prediction = { state in predict(state, action) }
        }
        return try await hub.engine.dispatch(address, payload: payload, prediction: prediction).get()
    }

    // MARK: Presence

    /// Everyone's presence here, this client's own included (PROTOCOL.md "Presence").
    public var presence: PresenceView { publisher.presence.view }

    /// The others' presence: every entry but this client's own connection.
    public var others: [PresenceEntry] {
        let own = hub.server?.session
        return presence.entries.values.filter { $0.session != own }.sorted { $0.session < $1.session }
    }

    /// Presence views as they change (the latest only when the reader lags), starting
    /// with the current one.
    public var presenceUpdates: AsyncStream<PresenceView> { publisher.presence.stream() }

    /// Sets this client's presence here (`nil` clears it); it is set again after a
    /// reconnect, since a presence belongs to a connection.
    public func setPresence(_ state: (some Encodable & Sendable)?) async throws(HubClientError) {
        var value: JSONValue?
        if let state {
            do {
                value = try JSONValueEncoder().encode(state)
            } catch {
                throw HubClientError(.invalidAction, "the presence state does not encode as JSON: \(error)", reactor: address)
            }
            guard case .object? = value else {
                throw HubClientError(.invalidAction, "a presence state is a JSON object", reactor: address)
            }
        }
        try await hub.engine.setPresence(address, state: value).get()
    }

    // MARK: Leaving

    /// Leaves the reactor (when no other handle of it is left): its streams end, actions
    /// still waiting fail with `left`. Idempotent.
    public func leave() async {
        let first = hasLeft.withLock { left -> Bool in
            defer { left = true }
            return !left
        }
        guard first else { return }
        await hub.engine.leave(address)
    }
}
