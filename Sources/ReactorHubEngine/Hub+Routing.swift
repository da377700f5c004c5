import ReactorHubProtocol
import ReactorHubJSON
import Reactor
import ReactorHubLogging

/// Routing of client messages, on the transport's service thread: joins, leaves and
/// actions reach their instance (or queue in its slot while it loads), or are refused
/// with the error PROTOCOL.md names.
extension Hub {
    func handle(_ request: ClientRequest, from id: ConnectionID, receivedAt: ContinuousClock.Instant = .now) {
        if configuration.auth != nil, !isServed(request.message), state.withLock({ $0.sessions[id]?.identity.isAuthenticated }) == false {
            return refuse(id, ProtocolError(.unauthenticated, #"authenticate first: send {"type":"auth","token":"…"} (only auth and ping are served before)"#), ref: request.ref)
        }
        switch request.message {
        case .ping:
            reply(codec.pong(ref: request.ref), to: id)
        case .auth(let token):
            authenticate(token, ref: request.ref, from: id)
        case .join(let address, let since, let checksums):
            join(address, since: since, checksums: checksums, ref: request.ref, from: id)
        case .leave(let address):
            leave(address, ref: request.ref, from: id)
        case .action(let address, let payload, let actionID):
            act(address, payload: payload, actionID: actionID, ref: request.ref, from: id, receivedAt: receivedAt)
        case .presence(let address, let state):
            setPresence(address, state: state, ref: request.ref, from: id)
        }
    }

    /// `auth` and `ping` are served before authentication.
    private func isServed(_ message: ClientMessage) -> Bool {
        switch message {
        case .auth, .ping: true
        default: false
        }
    }

    func join(_ address: ReactorAddress, since: ClientMessage.ResumePoint?, checksums: Bool = false, ref: Ref?, from id: ConnectionID) {
        guard let kind = registry.kind(named: address.kind) else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let now = ContinuousClock.now
        let result = state.withLock { state -> Result<(InstanceSlot, ConnectionOutput, Sender, created: Bool), ProtocolError> in
            guard var session = state.sessions[id] else {
                return .failure(ProtocolError(.internal, "this connection is closing"))
            }
            if let refusal = session.identity.refusal(.read, address) {
                return .failure(ProtocolError(.forbidden, refusal))
            }
            guard session.joinBucket.take(now: now) else {
                state.sessions[id] = session
                return .failure(ProtocolError(
                    .rateLimited,
                    "more than \(configuration.joinsPerSecond) joins per second (burst \(configuration.joinBurst), limits.joinsPerSecond) on this connection; slow down and retry"
                ))
            }
            state.sessions[id] = session
            if let joined = session.joined[address] {
                return .success((joined, session.output, session.sender(node: nodeName), false))
            }
            guard session.joined.count < configuration.maxJoinsPerConnection else {
                return .failure(ProtocolError(
                    .tooManyJoins,
                    "this connection has joined \(session.joined.count) reactors, the limit (limits.maxJoinsPerConnection); leave one before joining \(address)"
                ))
            }
            let slot: InstanceSlot
            let created: Bool
            switch state.slot(for: address, creator: session.quotaKey, configuration: configuration, memoryPressure: memoryPressure.load(ordering: .relaxed)) {
            case .failure(let error):
                return .failure(error)
            case .success(let found):
                (slot, created) = found
            }
            session.joined[address] = slot
            state.sessions[id] = session
            state.joinedCount[address, default: 0] += 1
            state.idleSince[address] = nil
            return .success((slot, session.output, session.sender(node: nodeName), created))
        }
        switch result {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let (slot, output, sender, created)):
            logger.debug("joined", metadata: ["session": id.description, "reactor": address.description])
            if created {
                load(slot, kind: kind)
            }
            forward(.join(output, ref: ref, since: since, sender: sender, checksums: checksums), to: slot)
        }
    }

    private func leave(_ address: ReactorAddress, ref: Ref?, from id: ConnectionID) {
        guard registry.kind(named: address.kind) != nil else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let found = state.withLock { state -> (InstanceSlot, ConnectionOutput)? in
            guard let session = state.sessions[id], let slot = state.sessions[id]?.joined.removeValue(forKey: address) else { return nil }
            state.forget(address)
            return (slot, session.output)
        }
        guard let (slot, output) = found else {
            return refuse(id, ProtocolError(.notJoined, "\(address) is not joined on this connection; nothing to leave"), ref: ref)
        }
        logger.debug("left", metadata: ["session": id.description, "reactor": address.description])
        leave(slot, output: output, ref: ref, reply: true)
    }

    /// Leaves `slot` (its instance, or its queue while it loads); with `reply`, answers `left`.
    func leave(_ slot: InstanceSlot, output: ConnectionOutput, ref: Ref?, reply: Bool) {
        forward(.leave(output, ref: ref, reply: reply), to: slot)
    }

    private func act(
        _ address: ReactorAddress, payload: ActionPayload, actionID: String?, ref: Ref?, from id: ConnectionID,
        receivedAt: ContinuousClock.Instant
    ) {
        // An unknown kind is refused before any other reason, but looked up only when the
        // action is refused (kinds are registered before the hub starts, and a joined address
        // has a known one; an address that is not joined is refused before its connection's
        // budget is charged). The budget is charged at the message's arrival (the clock was
        // read then).
        let now = receivedAt
        let lookup = state.withLock { state -> Result<(InstanceSlot, ConnectionOutput, Sender), ProtocolError> in
            if state.draining {
                return .failure(ProtocolError(.overloaded, "the server is shutting down and takes no new actions; retry on another server or later"))
            }
            if memoryPressure.load(ordering: .relaxed) {
                return .failure(ProtocolError(.overloaded, "the server is past 90% of its memory limit (limits.maxMemoryBytes) and takes no actions now; retry later"))
            }
            // The session is checked and charged where it is stored: copying it out and back
            // took a count of each of its members and a second lookup, for every action.
            guard let index = state.sessions.index(forKey: id) else {
                return .failure(ProtocolError(.notJoined, "join \(address) before sending actions to it"))
            }
            return admitAction(to: address, from: &state.sessions.values[index], now: now)
        }
        switch lookup {
        case .failure where registry.kind(named: address.kind) == nil:
            refuse(id, unknownKind(address.kind), ref: ref)
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let (slot, output, sender)):
            forward(.action(output, payload: payload, id: actionID, ref: ref, receivedAt: receivedAt, sender: sender), to: slot)
        }
    }

    /// The slot of `address` for an action of `session`, charged to its budget, or why not.
    private func admitAction(
        to address: ReactorAddress, from session: inout Session, now: ContinuousClock.Instant
    ) -> Result<(InstanceSlot, ConnectionOutput, Sender), ProtocolError> {
        guard let slot = session.joined[address] else {
            return .failure(ProtocolError(.notJoined, "join \(address) before sending actions to it"))
        }
        if let refusal = session.identity.refusal(.act, address) {
            return .failure(ProtocolError(.forbidden, refusal))
        }
        guard session.bucket.take(now: now) else {
            return .failure(ProtocolError(
                .rateLimited,
                "more than \(configuration.actionsPerSecond) actions per second (burst \(configuration.actionBurst)) on this connection; slow down and retry"
            ))
        }
        return .success((slot, session.output, session.sender(node: nodeName)))
    }

    /// `{"type":"presence",…}`: needs the reactor joined (and so the read right); counts
    /// against the action rate limit; at most `presence.maxBytes` of compact JSON.
    private func setPresence(_ address: ReactorAddress, state: JSONValue?, ref: Ref?, from id: ConnectionID) {
        guard registry.kind(named: address.kind) != nil else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        var bytes: [UInt8]?
        if let state {
            var writer = JSONWriter()
            writer.writeValue(state)
            guard writer.bytes.count <= configuration.presenceMaxBytes else {
                return refuse(id, ProtocolError(
                    .badRequest,
                    "a presence state takes at most \(configuration.presenceMaxBytes) bytes of compact JSON (presence.maxBytes), got \(writer.bytes.count)"
                ), ref: ref)
            }
            bytes = writer.bytes
        }
        let now = ContinuousClock.now
        let lookup = presenceLookup(address, id: id, now: now)
        switch lookup {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let (slot, output, user)):
            forward(.presence(output, user: user, state: bytes, ref: ref), to: slot)
        }
    }

    private func presenceLookup(_ address: ReactorAddress, id: ConnectionID, now: ContinuousClock.Instant)
        -> Result<(InstanceSlot, ConnectionOutput, String?), ProtocolError>
    {
        state.withLock { state in
            guard var session = state.sessions[id], let slot = session.joined[address] else {
                return .failure(ProtocolError(.notJoined, "join \(address) before setting a presence in it"))
            }
            guard session.bucket.take(now: now) else {
                return .failure(ProtocolError(
                    .rateLimited,
                    "more than \(configuration.actionsPerSecond) actions and presence updates per second (burst \(configuration.actionBurst)) on this connection; slow down and retry"
                ))
            }
            state.sessions[id] = session
            return .success((slot, session.output, session.identity.user))
        }
    }

    /// Hands `request` to the slot's instance, queues it while the instance loads, or
    /// answers the load's failure.
    func forward(_ request: InstanceSlot.Pending, to slot: InstanceSlot) {
        perform(request, route: slot.route(request), address: slot.address)
    }

    /// Carries out `request` once its slot's route is known (also for queued requests,
    /// replayed in order when the load completes).
    func perform(_ request: InstanceSlot.Pending, route: InstanceSlot.Route, address: ReactorAddress) {
        switch (request, route) {
        case (_, .queued):
            break
        case (.join(let output, let ref, let since, let sender, let checksums), .ready(let instance)):
            if let refusal = instance.join(output, ref: ref, since: since, checksums: checksums, sender: sender) {
                // The kind's own rule refused it: the connection has not joined after all.
                state.withLock { state in
                    guard state.sessions[output.id]?.joined.removeValue(forKey: address) != nil else { return }
                    state.forget(address)
                }
                send(codec.error(refusal, ref: ref), to: output, refusal: refusal)
            }
        case (.action(let output, let payload, let actionID, let ref, let receivedAt, let sender), .ready(let instance)):
            if let error = instance.dispatch(payload, from: output, sender: sender, id: actionID, ref: ref, receivedAt: receivedAt) {
                metrics.action(address.kind, "refused")
                send(codec.error(error, ref: ref), to: output, refusal: error)
            }
        case (.presence(let output, let user, let state, let ref), .ready(let instance)):
            instance.setPresence(output, user: user, state: state, ref: ref)
        case (.presence(let output, _, _, let ref), .failed(let error)):
            send(codec.error(error, ref: ref), to: output, refusal: error)
        case (.leave(let output, let ref, let reply), .ready(let instance)):
            instance.leave(output.id)
            if reply { send(codec.left(address.description, ref: ref, reason: nil), to: output) }
        case (.join(let output, let ref, _, _, _), .failed(let error)), (.action(let output, _, _, let ref, _, _), .failed(let error)):
            send(codec.error(error, ref: ref), to: output, refusal: error)
        case (.leave(let output, let ref, let reply), .failed):
            if reply { send(codec.left(address.description, ref: ref, reason: nil), to: output) }
        case (.visit(let look), .ready(let instance)):
            look(.success(instance))
        case (.visit(let look), .failed(let error)):
            look(.failure(error))
        }
    }

    private func send(_ message: OutboundMessage, to output: ConnectionOutput, refusal: ProtocolError? = nil) {
        if let refusal {
            metrics.errors.increment(refusal.code.rawValue)
            logger.debug("refused", metadata: ["session": output.id.description, "code": refusal.code.rawValue, "message": refusal.message])
        }
        delivery.send(.reply(message), to: output)
    }

    /// Sends a reply to `id` if it is still open.
    func reply(_ message: OutboundMessage, to id: ConnectionID) {
        guard let output = delivery.output(of: id) else { return }
        delivery.send(.reply(message), to: output)
    }

    func refuse(_ id: ConnectionID, _ error: ProtocolError, ref: Ref?) {
        metrics.errors.increment(error.code.rawValue)
        logger.debug("refused", metadata: ["session": id.description, "code": error.code.rawValue, "message": error.message])
        reply(codec.error(error, ref: ref), to: id)
    }

    /// This node's name (`hello.node`, `Sender.node`): the cluster's node id, or the
    /// configured one.
    var nodeName: String? { cluster?.id ?? configuration.nodeID }

    private func unknownKind(_ kind: String) -> ProtocolError {
        ProtocolError(.unknownReactor, "no reactor kind '\(kind)'; kinds: \(registry.names.joined(separator: ", "))")
    }
}

extension Hub.State {
    /// The slot of `address`; when there is none, a new one counted against `creator`, if
    /// the limits allow (`limits.maxInstances`, `maxInstancesPerUser`, `maxMemoryBytes`).
    /// `created`: the caller must load its instance.
    mutating func slot(
        for address: ReactorAddress, creator: String, configuration: HubConfiguration, memoryPressure: Bool
    ) -> Result<(InstanceSlot, created: Bool), ProtocolError> {
        if let existing = slots[address] { return .success((existing, false)) }
        guard slots.count < configuration.maxInstances else {
            return .failure(ProtocolError(
                .overloaded,
                "the server holds \(slots.count) instances, its limit (limits.maxInstances); \(address) cannot be created now: join an existing reactor, or retry later"
            ))
        }
        let held = self.created[creator, default: 0]
        guard held < configuration.instancesPerUser else {
            return .failure(ProtocolError(
                .overloaded,
                "\(creator) holds \(held) instances it created, its quota (limits.maxInstancesPerUser); \(address) cannot be created now: join an existing reactor, or retry once yours are idle"
            ))
        }
        guard !memoryPressure else {
            return .failure(ProtocolError(
                .overloaded,
                "the server is past 90% of its memory limit (limits.maxMemoryBytes); \(address) cannot be created now: join an existing reactor, or retry later"
            ))
        }
        nextStream += 1
        let slot = InstanceSlot(address: address, stream: StreamID(rawValue: nextStream), creator: creator)
        slots[address] = slot
        slotsByStream[slot.stream] = slot
        self.created[creator, default: 0] += 1
        return .success((slot, true))
    }

    /// The instance of `slot` is gone from memory: it no longer counts against its creator.
    mutating func release(_ slot: InstanceSlot) {
        let remaining = (created[slot.creator] ?? 1) - 1
        created[slot.creator] = remaining > 0 ? remaining : nil
    }

    /// One session fewer has `address` joined; the instance is idle from now when none has.
    mutating func forget(_ address: ReactorAddress, now: ContinuousClock.Instant = .now) {
        let remaining = (joinedCount[address] ?? 1) - 1
        if remaining <= 0 {
            joinedCount[address] = nil
            idleSince[address] = now
        } else {
            joinedCount[address] = remaining
        }
    }
}
