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
public final class RemoteReactor<State: Decodable & Sendable, Action: Sendable>: Sendable {
    /// The reactor's address, `KIND/ID`.
    public let address: String
    let hub: HubClient
    let publisher: ReplicaPublisher
    let pulseNames: [String]
    /// Puts an action in wire form (chosen by `HubClient.join` from `Action`'s conformances).
    let encodeAction: @Sendable (Action) throws(ActionEncodingError) -> JSONValue
    private let decoded = Locked<(number: UInt64, state: State)?>(nil)
    private let hasLeft = Locked(false)

    init(
        hub: HubClient,
        address: String,
        joined: ClientEngine.Joined,
        encodeAction: @escaping @Sendable (Action) throws(ActionEncodingError) -> JSONValue
    ) {
        self.hub = hub
        self.address = address
        self.publisher = joined.publisher
        self.pulseNames = joined.pulseNames
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

    /// The latest revision the client holds: the state as JSON, its version and epoch.
    public var revision: Revision {
        // A joined reactor always has one; after it ended the last one stays readable.
        publisher.latest!
    }

    /// The state version the client holds.
    public var version: Int { revision.version }

    /// The instance's epoch.
    public var epoch: String { revision.epoch }

    /// Why the reactor's streams ended: `left` (by this client, or by the server for lack of
    /// rights), `closed`, or the client's end (`unauthenticated` once the server revoked
    /// or expired a token the client cannot renew); nil while it is live.
    public var endReason: HubClientError? { publisher.ending }

    /// The latest state, readable from any thread. (A state that fails to decode is logged
    /// and the last one that decoded is returned.)
    public var currentState: State {
        let revision = revision
        if let cached = decoded.withLock({ $0 }), cached.number >= revision.number {
            return cached.state
        }
        do {
            let state = try decode(revision)
            decoded.withLock { current in
                if current == nil || current!.number < revision.number {
                    current = (revision.number, state)
                }
            }
            return state
        } catch {
            hub.logger.warning("a state does not decode; keeping the last one", metadata: ["reactor": address, "version": String(revision.version), "error": error.message])
            return decoded.withLock { $0!.state }
        }
    }

    /// The current state, then each new one, keeping only the latest for a reader that
    /// falls behind (or never reads). Ends when the reactor is left or the client closes.
    public var states: RemoteStates<State> {
        states(bufferingNewest: 1)
    }

    /// The current state, then each new one, keeping up to `limit` unread states (the
    /// oldest are dropped past that). `states` is `limit` 1.
    public func states(bufferingNewest limit: Int) -> RemoteStates<State> {
        RemoteStates(publisher: publisher, capacity: max(1, limit)) { [self] revision in
            do {
                return try decode(revision)
            } catch {
                hub.logger.warning("a state does not decode; skipped", metadata: ["reactor": address, "version": String(revision.version), "error": "\(error)"])
                return nil
            }
        }
    }

    /// Every revision (state as JSON, version, epoch, cause), keeping up to `limit` unread.
    public func revisions(bufferingNewest limit: Int = 1) -> RemoteStates<Revision> {
        RemoteStates(publisher: publisher, capacity: max(1, limit)) { $0 }
    }

    func decode(_ revision: Revision) throws(HubClientError) -> State {
        if State.self == JSONValue.self {
            return revision.state as! State
        }
        do {
            // A decoder with user info is slower on every value: only when a pulse fired.
            let decoder = revision.pulses.isEmpty
                ? JSONValueDecoder()
                : JSONValueDecoder(userInfo: [PulseSource.userInfoKey: Self.source(revision.pulses)])
            return try decoder.decode(State.self, from: revision.state)
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
    /// patches it causes follow). Throws the server's refusal (`unknown_action`,
    /// `invalid_action`, `forbidden`, `rate_limited`…) with its code and message, or
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
        return try await hub.engine.dispatch(address, payload: payload).get()
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
