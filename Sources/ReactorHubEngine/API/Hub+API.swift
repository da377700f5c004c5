import Foundation
import ReactorHubProtocol
import ReactorHubJSON

/// The HTTP API under `/api/v1/` (API.md): every endpoint is one more way into the same
/// engine as a WebSocket, with the same identity, rights, limits and instances. Requests
/// arrive on the transport's service thread; checks run there under the hub's lock, and
/// `respond` is called once, from whichever thread has the answer.
extension Hub {
    func api(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        guard configuration.apiEnabled else {
            return respond(APIError(status: 404, ProtocolError(.badRequest, "the HTTP API is off on this server (api.enabled: false)")).response)
        }
        if let refusal = apiRefusal(request) { return respond(refusal.response) }
        let endpoint: APIEndpoint
        switch APIEndpoint.parse(request.path) {
        case .failure(let error): return respond(error.response)
        case .success(let parsed): endpoint = parsed
        }
        if request.method == "OPTIONS", request.headers["origin"] != nil, request.headers["access-control-request-method"] != nil {
            return respond(preflight(endpoint))
        }
        guard endpoint.methods.contains(request.method) else {
            let allow = endpoint.methods.joined(separator: ", ")
            return respond(APIError(
                status: 405, ProtocolError(.badRequest, "\(request.path) answers \(allow), not \(request.method)"), headers: [HTTPField("Allow", allow)]
            ).response)
        }
        switch endpoint {
        case .kinds: respond(kinds(request))
        case .openAPI: respond(HTTPResponse.json(200, OpenAPIDocument.bytes))
        case .state(let address): readState(address, request, respond: respond)
        case .patches(let address): readPatches(address, request, respond: respond)
        case .actions(let address): act(on: address, request, respond: respond)
        case .batch: actInBatch(request, respond: respond)
        case .events(let address): openEventStream(address, request, respond: respond)
        }
    }

    /// What is refused before the path is even read: a cross-site request (403, before
    /// anything is read or changed) and a body over the limit (413).
    private func apiRefusal(_ request: HTTPRequest) -> APIError? {
        if !request.originAllowed {
            return APIError(ProtocolError(
                .forbidden, "origin \(request.headers["origin"] ?? "?") is not allowed (security.allowedOrigins): a page on another site may not use this API"
            ))
        }
        if request.bodyOverLimit {
            return APIError(status: 413, ProtocolError(
                .badRequest, "the body is larger than \(configuration.maxMessageBytes) bytes (limits.maxMessageBytes); send less at once"
            ))
        }
        return nil
    }

    /// The answer to a CORS preflight from an allowed origin (the transport adds the origin).
    private func preflight(_ endpoint: APIEndpoint) -> HTTPResponse {
        let allow = endpoint.methods.joined(separator: ", ")
        return HTTPResponse(status: 204, body: [], headers: [
            HTTPField("Allow", allow), HTTPField("Access-Control-Allow-Methods", allow),
            HTTPField("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match, Last-Event-ID"),
            HTTPField("Access-Control-Max-Age", "600"),
        ])
    }

    /// `GET /api/v1/kinds`: `hello.reactors`. No token needed (as `hello`), but one that is
    /// sent must verify.
    private func kinds(_ request: HTTPRequest) -> HTTPResponse {
        if AuthPolicy.token(query: [:], authorization: request.authorization) != nil, case .failure(let error) = apiIdentity(request) {
            return error.response
        }
        var bytes = Array(#"{"kinds":"#.utf8)
        bytes += helloReactors
        bytes.append(UInt8(ascii: "}"))
        return .json(200, bytes)
    }

    // MARK: Identity, limits, instances

    /// Who a request is (PROTOCOL.md "Identity and rights"): its bearer token (or, for an
    /// event stream, `?token=`), the anonymous rights without one when `auth.required` is
    /// false, or 401.
    func apiIdentity(_ request: HTTPRequest, acceptsQueryToken: Bool = false) -> Result<SessionIdentity, APIError> {
        guard let policy = configuration.auth else { return .success(.open) }
        guard let token = AuthPolicy.token(query: acceptsQueryToken ? request.query : [:], authorization: request.authorization) else {
            if !policy.required { return .success(.anonymous(policy.anonymousRights)) }
            return .failure(APIError(ProtocolError(.unauthenticated, "a token is required: send Authorization: Bearer TOKEN")))
        }
        switch verifyAtUpgrade(token, policy: policy) {
        case .success(let identity):
            return .success(.user(identity))
        case .failure(let refusal):
            metrics.authFailures.increment(refusal.reason)
            logger.info("refusing request: token refused", metadata: ["reason": refusal.reason, "peer": request.peerAddress, "path": request.path])
            return .failure(APIError(ProtocolError(.unauthenticated, "the token was refused (\(refusal.reason)): \(refusal.message)")))
        }
    }

    /// The slot of `address` for a request of `identity` that needs `access`, created (and
    /// loading) when the instance is not in memory, as a join creates it; or the refusal.
    /// An instance that no connection has joined counts as idle from now (evicted later).
    func apiSlot(
        _ address: ReactorAddress, identity: SessionIdentity, access: Access, peer: String, inPath: Bool = true
    ) -> Result<InstanceSlot, APIError> {
        let kind: ReactorKind
        switch apiAccess(address, identity: identity, access: access, inPath: inPath) {
        case .failure(let error): return .failure(error)
        case .success(let found): kind = found
        }
        let now = ContinuousClock.now
        let result = state.withLock { state -> Result<(InstanceSlot, created: Bool), ProtocolError> in
            if state.draining {
                return .failure(ProtocolError(.overloaded, "the server is shutting down; retry on another server or later"))
            }
            let found = state.slot(
                for: address, creator: identity.quotaKey(peer: peer), configuration: configuration, memoryPressure: memoryPressure.load(ordering: .relaxed)
            )
            if case .success = found, state.joinedCount[address] == nil { state.idleSince[address] = now }
            return found
        }
        switch result {
        case .failure(let error):
            return .failure(APIError(error, inPath: inPath, retryAfter: 1))
        case .success(let (slot, created)):
            if created { load(slot, kind: kind) }
            return .success(slot)
        }
    }

    /// The kind of `address` when it is registered and `identity` has `access` on it; the
    /// refusal otherwise (`unknown_reactor`, `forbidden`).
    func apiAccess(_ address: ReactorAddress, identity: SessionIdentity, access: Access, inPath: Bool) -> Result<ReactorKind, APIError> {
        guard let kind = registry.kind(named: address.kind) else {
            return .failure(APIError(ProtocolError(.unknownReactor, "no reactor kind '\(address.kind)'; kinds: \(registry.names.joined(separator: ", "))"), inPath: inPath))
        }
        if let refusal = identity.refusal(access, address) {
            return .failure(APIError(ProtocolError(.forbidden, refusal), inPath: inPath))
        }
        return .success(kind)
    }

    /// Takes one action from the budget of `identity` (its user, or the peer address when
    /// anonymous: `limits.actionsPerSecond`, `actionBurst`); the refusal when it is spent.
    func takeAPIAction(identity: SessionIdentity, peer: String) -> APIError? {
        let key = identity.quotaKey(peer: peer)
        let now = ContinuousClock.now
        let wait = state.withLock { state -> Int? in
            if state.apiBuckets.count > 4096 { state.apiBuckets = state.apiBuckets.filter { !$0.value.isFull(now: now) } }
            var bucket = state.apiBuckets[key] ?? TokenBucket(ratePerSecond: configuration.actionsPerSecond, burst: configuration.actionBurst, now: now)
            defer { state.apiBuckets[key] = bucket }
            return bucket.take(now: now) ? nil : bucket.secondsUntilNext(now: now)
        }
        guard let wait else { return nil }
        return APIError(ProtocolError(
            .rateLimited,
            "more than \(configuration.actionsPerSecond) actions per second (burst \(configuration.actionBurst)) for \(key); slow down and retry after \(wait) s"
        ), retryAfter: wait)
    }
}
