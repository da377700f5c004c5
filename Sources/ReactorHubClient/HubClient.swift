public import ReactorHubJSON
public import ReactorHubLogging

/// A connection to a ReactorHub daemon through which remote reactors read like local
/// ReactorKit reactors: join one, read its `currentState`, follow its `states` and
/// pulses, `send` it actions.
///
/// ```swift
/// let hub = try await HubClient.connect("ws://127.0.0.1:8080/ws", token: .static(jwt), logger: logger)
/// let counter = try await hub.join("counter/demo", state: CounterReactor.State.self, action: CounterReactor.Action.self)
/// for await state in counter.states { render(state) }        // in one task
/// for await message in counter.pulse(\.$alertMessage) { … } // in another
/// let version = try await counter.send(.increase)
/// await hub.close()
/// ```
///
/// The client keeps each reactor's copy by the protocol's rules (patches apply only to
/// the version they follow; a gap re-joins with `since`, a patch that does not apply
/// re-joins without it), reconnects with an exponential backoff and jitter after the
/// connection drops, resumes every joined reactor, sends each action with an `id` and
/// sends it again (once, with the same `id`) when its answer was lost with the
/// connection, and refreshes its token before it expires. Every method may be called
/// from any task.
public final class HubClient: Sendable {
    let engine: ClientEngine
    /// The logger handed to `connect`.
    public let logger: Logger

    private init(engine: ClientEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    deinit {
        let engine = engine
        Task { await engine.close() }
    }

    /// Connects to the daemon at `url` (`ws://HOST:PORT/ws` or `wss://…`) and returns once
    /// it said `hello`; throws when this first connection fails (`cannot_connect`,
    /// `unauthenticated` for a refused token, `invalid_url`); by then the platform socket
    /// has stopped, so the program may exit at once. Later drops are reconnected.
    public static func connect(
        _ url: String,
        token: TokenSource? = nil,
        options: HubClientOptions = HubClientOptions(),
        logger: Logger
    ) async throws(HubClientError) -> HubClient {
        try await connect([url], token: token, options: options, logger: logger)
    }

    /// Connects to the first of `urls` that answers (the nodes of a cluster, in the order
    /// to try them) and returns once it said `hello`; throws when each of them failed once
    /// (a refused token at once: the nodes share the key). Later, each attempt that fails
    /// and each connection that drops moves on to the next URL, round and round, with the
    /// reconnect backoff between attempts.
    public static func connect(
        _ urls: [String],
        token: TokenSource? = nil,
        options: HubClientOptions = HubClientOptions(),
        logger: Logger
    ) async throws(HubClientError) -> HubClient {
        guard !urls.isEmpty else {
            throw HubClientError(.invalidURL, "no URL to connect to")
        }
        let socket: any ClientSocket
        let owned: Bool
        if let given = options.socket {
            socket = given
            owned = false
        } else {
            socket = Self.platformSocket(options: options, logger: logger)
            owned = true
        }
        let engine = ClientEngine(urls: urls, token: token, options: options, socket: socket, ownsSocket: owned, logger: logger)
        let client = HubClient(engine: engine, logger: logger)
        try await engine.start().get()
        return client
    }

    private static func platformSocket(options: HubClientOptions, logger: Logger) -> any ClientSocket {
        #if os(Linux)
        return LibWebSocketsClientSocket(caFile: options.caFile, allowsInsecureTLS: options.allowsInsecureTLS, logger: logger)
        #elseif canImport(Darwin)
        return URLSessionClientSocket()
        #else
        fatalError("no platform socket: pass HubClientOptions.socket")
        #endif
    }

    /// Joins the reactor at `address` (`KIND/ID`) and returns it once it has a state that
    /// decodes as `State`. Throws the server's refusal (`unknown_reactor`, `forbidden`,
    /// `too_many_joins`…) or `decoding_failed`. Joining an address twice gives two handles
    /// of one subscription; it is left when the last handle leaves. Actions are encoded
    /// through `Action`'s `Encodable` conformance (`ActionEncoder.encode(_:)`). With a
    /// `predictor` (`.reactor(KindReactor())` for a kind whose code the app shares), the
    /// handle's actions show in its state before the server answers.
    public func join<State: Decodable & Sendable, Action: Encodable & Sendable>(
        _ address: String,
        state: State.Type,
        action: Action.Type,
        predictor: RemotePredictor<State, Action>? = nil
    ) async throws(HubClientError) -> RemoteReactor<State, Action> {
        try await join(address, predictor: predictor, encodeAction: Self.throughConformance())
    }

    /// Joins the reactor at `address` with an `Action` enum that is only `Decodable`, as
    /// reactors declare their actions (`enum Action: Decodable, Sendable`), so an app that
    /// shares the reactor's code sends its actions as they are: each is encoded by
    /// reflection, with the members named as the server's schema of the same enum names
    /// them (`ActionEncoder.encode(reflecting:schema:)`); its associated values must be
    /// `Encodable`. Otherwise as the `Encodable` overload.
    public func join<State: Decodable & Sendable, Action: Decodable & Sendable>(
        _ address: String,
        state: State.Type,
        action: Action.Type,
        predictor: RemotePredictor<State, Action>? = nil
    ) async throws(HubClientError) -> RemoteReactor<State, Action> {
        let schema = ActionSchema(describing: Action.self)
        return try await join(address, predictor: predictor) { (action: Action) throws(ActionEncodingError) -> JSONValue in
            try ActionEncoder().encode(reflecting: action, schema: schema)
        }
    }

    /// Joins the reactor at `address` with an `Action` that is both `Encodable` and
    /// `Decodable`: encoded through its `Encodable` conformance (this overload only settles
    /// which of the two others applies).
    public func join<State: Decodable & Sendable, Action: Codable & Sendable>(
        _ address: String,
        state: State.Type,
        action: Action.Type,
        predictor: RemotePredictor<State, Action>? = nil
    ) async throws(HubClientError) -> RemoteReactor<State, Action> {
        try await join(address, predictor: predictor, encodeAction: Self.throughConformance())
    }

    /// Encodes an action through its `Encodable` conformance.
    private static func throughConformance<Action: Encodable & Sendable>() -> @Sendable (Action) throws(ActionEncodingError) -> JSONValue {
        { action throws(ActionEncodingError) in try ActionEncoder().encode(action) }
    }

    private func join<State: Decodable & Sendable, Action: Sendable>(
        _ address: String,
        predictor: RemotePredictor<State, Action>?,
        encodeAction: @escaping @Sendable (Action) throws(ActionEncodingError) -> JSONValue
    ) async throws(HubClientError) -> RemoteReactor<State, Action> {
        let joined = try await engine.join(address).get()
        let reactor = RemoteReactor<State, Action>(hub: self, address: address, joined: joined, predictor: predictor, encodeAction: encodeAction)
        do {
            try reactor.validate()
        } catch {
            await reactor.leave()
            throw error
        }
        return reactor
    }

    /// Joins `address` without types: its state as a `JSONValue`, actions in wire form
    /// (`"increase"`, `{"type":"add","title":"…"}`), predicted by `predictor` when given.
    public func join(
        _ address: String,
        predictor: RemotePredictor<JSONValue, JSONValue>? = nil
    ) async throws(HubClientError) -> RemoteReactor<JSONValue, JSONValue> {
        try await join(address, state: JSONValue.self, action: JSONValue.self, predictor: predictor)
    }

    /// The round-trip time of a `ping`.
    public func ping() async throws(HubClientError) -> Duration {
        try await engine.ping().get()
    }

    /// The connection's status now.
    public var status: HubClientStatus { engine.board.status }

    /// The status now, then every change; finishes when the client is closed.
    public var statusUpdates: AsyncStream<HubClientStatus> { engine.board.updates() }

    /// Checksums (`HubClientOptions.checksums`) that the state held did not match; each
    /// made the client join that reactor afresh.
    public var checksumMismatches: Int { engine.mismatches.count }

    /// Every checksum mismatch from now on; finishes when the client is closed.
    public var mismatches: AsyncStream<ChecksumMismatch> { engine.mismatches.updates() }

    /// What the server said in its last `hello`: its name, this session, the kinds.
    public var server: HubServerInfo? { engine.board.server }

    /// Closes the connection for good: a close frame with 1000 goes to the server, and the
    /// socket is released once the server answered it (or after 1 s); every reactor's
    /// streams end, every wait fails with `closed`.
    public func close() async {
        await engine.close()
    }
}
