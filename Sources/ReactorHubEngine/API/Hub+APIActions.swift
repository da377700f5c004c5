import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubLocking
import Reactor
import Dispatch

/// The API's actions (API.md): one, or a batch, each dispatched exactly as a WebSocket
/// action is (the same instance, forwarded to the owner in a cluster, the same ids, rate
/// and backpressure) and answered once its ack or refusal comes back through the log.
extension Hub {
    /// `POST /api/v1/reactors/KIND/ID/actions` with `{"action":A,"id":"optional"}`.
    func act(on address: ReactorAddress, _ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let receivedAt = ContinuousClock.now
        let identity: SessionIdentity
        switch apiIdentity(request) {
        case .failure(let error): return respond(error.response)
        case .success(let found): identity = found
        }
        let members = Self.jsonObject(request.body, expected: #"{"action":ACTION,"id":"optional"}"#)
            .flatMap { ClientMessageParser.actionMembers(of: $0, in: "the body").mapError { APIError($0) } }
        switch members {
        case .failure(let error):
            respond(error.response)
        case .success(let (action, id)):
            dispatchAPIAction(address, action: action, id: id, identity: identity, peer: request.peerAddress, receivedAt: receivedAt, inPath: true) { answer in
                switch answer {
                case .success(let body): respond(.json(200, Self.bytes(body)))
                case .failure(let error): respond(error.response)
                }
            }
        }
    }

    /// `POST /api/v1/actions` with `{"actions":[{"reactor","action","id"?}…]}`: at most 100,
    /// each on its own, answered in order (`{"results":[…]}`).
    func actInBatch(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let receivedAt = ContinuousClock.now
        let identity: SessionIdentity
        switch apiIdentity(request) {
        case .failure(let error): return respond(error.response)
        case .success(let found): identity = found
        }
        let expected = #"{"actions":[{"reactor":"KIND/ID","action":ACTION,"id":"optional"},…]}"#
        let items: [JSONValue]
        switch Self.jsonObject(request.body, expected: expected) {
        case .failure(let error): return respond(error.response)
        case .success(let object):
            guard case .array(let list)? = object["actions"] else {
                return respond(APIError(ProtocolError(.badRequest, "the body needs member 'actions', an array: \(expected)")).response)
            }
            guard list.count <= Self.maxBatch else {
                return respond(APIError(ProtocolError(
                    .badRequest, "a batch holds at most \(Self.maxBatch) actions, got \(list.count); nothing was applied: send them in several batches"
                )).response)
            }
            items = list
        }
        let results = Locked([JSONValue?](repeating: nil, count: items.count))
        let remaining = Locked(items.count)
        let finish: @Sendable () -> Void = {
            let all = results.withLock { $0.map { $0 ?? .null } }
            respond(.json(200, Self.bytes(.object(["results": .array(all)]))))
        }
        if items.isEmpty { return finish() }
        for (index, item) in items.enumerated() {
            let store: @Sendable (JSONValue) -> Void = { value in
                results.withLock { $0[index] = value }
                if remaining.withLock({ $0 -= 1; return $0 }) == 0 { finish() }
            }
            switch Self.batchItem(item, index: index) {
            case .failure(let error):
                store(error.body)
            case .success(let (address, action, id)):
                dispatchAPIAction(address, action: action, id: id, identity: identity, peer: request.peerAddress, receivedAt: receivedAt, inPath: false) {
                    switch $0 {
                    case .success(let body): store(body)
                    case .failure(let error): store(error.body)
                    }
                }
            }
        }
    }

    /// The most actions one batch may hold.
    static let maxBatch = 100

    /// One item of a batch: its address, action and id, or the error body that answers it.
    private static func batchItem(_ item: JSONValue, index: Int) -> Result<(ReactorAddress, JSONValue, String?), APIError> {
        guard case .object(let object) = item else {
            return .failure(APIError(ProtocolError(.badRequest, "actions[\(index)] must be an object {\"reactor\":\"KIND/ID\",\"action\":ACTION}")))
        }
        guard case .string(let text)? = object["reactor"] else {
            return .failure(APIError(ProtocolError(.badRequest, "actions[\(index)] needs member 'reactor': a string KIND/ID such as \"counter/lobby\"")))
        }
        guard let address = ReactorAddress(text) else {
            return .failure(APIError(ProtocolError(
                .invalidReactor, "reactor address '\(text)' is malformed; expected \(ReactorAddress.ruleDescription)"
            ), inPath: false))
        }
        return ClientMessageParser.actionMembers(of: object, in: "actions[\(index)]")
            .map { (address, $0.action, $0.id) }
            .mapError { APIError($0, inPath: false) }
    }

    /// Checks an HTTP action as the router checks a WebSocket one (rights, draining, memory,
    /// rate, the instance's limits and backpressure), then sends it to the instance as from
    /// a connection inside the process whose one reply is the answer: the ack as
    /// `{"reactor","epoch","version","applied"}` (with `"duplicate":true` for a repeated
    /// id), or the refusal.
    func dispatchAPIAction(
        _ address: ReactorAddress, action: JSONValue, id: String?, identity: SessionIdentity, peer: String,
        receivedAt: ContinuousClock.Instant, inPath: Bool, complete: @escaping @Sendable (Result<JSONValue, APIError>) -> Void
    ) {
        let refusal = state.withLock { state -> ProtocolError? in
            if state.draining { return ProtocolError(.overloaded, "the server is shutting down and takes no new actions; retry on another server or later") }
            if memoryPressure.load(ordering: .relaxed) {
                return ProtocolError(.overloaded, "the server is past 90% of its memory limit (limits.maxMemoryBytes) and takes no actions now; retry later")
            }
            return nil
        }
        if let refusal { return complete(.failure(APIError(refusal, inPath: inPath))) }
        if case .failure(let error) = apiAccess(address, identity: identity, access: .act, inPath: inPath) {
            return complete(.failure(error))
        }
        if let limited = takeAPIAction(identity: identity, peer: peer) {
            return complete(.failure(limited))
        }
        let slot: InstanceSlot
        switch apiSlot(address, identity: identity, access: .act, peer: peer, inPath: inPath) {
        case .failure(let error): return complete(.failure(error))
        case .success(let found): slot = found
        }
        if load.refuses(slot.stream) {
            return complete(.failure(APIError(ProtocolError(
                .overloaded, "\(address) has more actions waiting than it takes (limits.maxPendingActions); retry shortly"
            ), inPath: inPath)))
        }
        let codec = self.codec
        let load = self.load
        let (output, session) = caller { [weak slot] output, message in
            load.forget(output.id)
            switch codec.actionReply(message) {
            case .ack(let version, let applied, let duplicate)?:
                var answer: JSONObject = [
                    "reactor": .string(address.description), "epoch": .string(slot?.instance?.position.epoch ?? ""),
                    "version": .int(version), "applied": .int(applied),
                ]
                if duplicate { answer["duplicate"] = true }
                complete(.success(.object(answer)))
            case .error(let error, let duplicate)?:
                var refusal = APIError(error, inPath: inPath)
                if duplicate { refusal.extra = [("duplicate", true)] }
                complete(.failure(refusal))
            case nil:
                complete(.failure(APIError(ProtocolError(.internal, "the instance answered something that is not an ack or an error"))))
            }
        }
        let sender = identity.sender(session: session, node: nodeName, transport: .http)
        forward(.action(output, payload: ActionPayload(action), id: id, ref: 1, receivedAt: receivedAt, sender: sender), to: slot)
    }

    /// A connection inside the process for one HTTP action: the first reply sent to it goes
    /// to `answer`, and nothing else is kept. Returns it with its session name.
    private func caller(_ answer: @escaping @Sendable (ConnectionOutput, OutboundMessage) -> Void) -> (ConnectionOutput, String) {
        let number = state.withLock { state in
            state.nextCaller += 1
            return state.nextCaller
        }
        let box = Locked<ConnectionOutput?>(nil)
        let output = ConnectionOutput(id: ConnectionID(rawValue: Self.callerIDs | number), limits: delivery.limits) { outgoing in
            guard case .reply(let message) = outgoing,
                  let output = box.withLock({ box -> ConnectionOutput? in defer { box = nil }; return box })
            else { return }
            // Replies are delivered under the instance view's lock: the answer, which reads
            // the view, is made after it.
            DispatchQueue.global().async { answer(output, message) }
        }
        box.withLock { $0 = output }
        let session = "http-\(number)"
        return (output, cluster.map { "\($0.id):\(session)" } ?? session)
    }

    /// The connection ids of HTTP callers: above every id a transport hands out.
    static let callerIDs: UInt64 = 1 << 62

    /// The body's JSON object, or 400 (`bad_json`, or `bad_request` naming what is expected).
    static func jsonObject(_ body: [UInt8], expected: String) -> Result<JSONObject, APIError> {
        let value: JSONValue
        do {
            value = try JSONParser().parse(body)
        } catch {
            return .failure(APIError(ProtocolError(.badJSON, "the body is not valid JSON (\(error.message)); expected \(expected)")))
        }
        guard case .object(let object) = value else {
            return .failure(APIError(ProtocolError(.badRequest, "the body must be a JSON object \(expected), got \(value.kind.phrase)")))
        }
        return .success(object)
    }

    static func bytes(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeValue(value)
        return writer.bytes
    }
}
