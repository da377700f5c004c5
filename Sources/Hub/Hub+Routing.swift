import JSON
import Logging
import Transport

/// Routing of client messages, on the transport's service thread: joins, leaves and
/// actions reach their instance, or are refused with the error PROTOCOL.md names.
extension Hub {
    func handle(_ request: ClientRequest, from id: ConnectionID) {
        switch request.message {
        case .ping:
            channel.send(ServerMessage.pong(ref: request.ref), to: id)
        case .join(let address, let since):
            join(address, since: since, ref: request.ref, from: id)
        case .leave(let address):
            leave(address, ref: request.ref, from: id)
        case .action(let address, let payload):
            act(address, payload: payload, ref: request.ref, from: id)
        }
    }

    private func join(_ address: ReactorAddress, since: ClientMessage.ResumePoint?, ref: JSONValue?, from id: ConnectionID) {
        guard let kind = registry.kind(named: address.kind) else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let result = state.withLock { state -> Result<any HubInstance, ProtocolError> in
            guard var session = state.sessions[id] else {
                return .failure(ProtocolError(.internal, "this connection is closing"))
            }
            if let joined = session.joined[address] {
                return .success(joined)
            }
            guard session.joined.count < configuration.maxJoinsPerConnection else {
                return .failure(ProtocolError(
                    .tooManyJoins,
                    "this connection has joined \(session.joined.count) reactors, the limit (limits.maxJoinsPerConnection); leave one before joining \(address)"
                ))
            }
            let instance: any HubInstance
            if let existing = state.instances[address] {
                instance = existing
            } else {
                state.nextStream += 1
                let context = ReactorKind.InstanceContext(
                    stream: StreamID(rawValue: state.nextStream),
                    channel: channel,
                    historyCapacity: configuration.historyPatches,
                    coalescingLimit: max(configuration.transport.outboundQueueBytes / 4, 1024),
                    store: store,
                    durableAcks: configuration.durableAcks,
                    logger: Logger(label: "reactor")
                )
                do {
                    instance = try kind.makeInstance(address, context)
                } catch {
                    logger.error("could not create instance", metadata: ["reactor": address.description, "error": "\(error)"])
                    return .failure(ProtocolError(.internal, "\(address) could not be created: \(error)"))
                }
                state.instances[address] = instance
                state.instancesByStream[instance.stream] = instance
                logger.debug("instance created", metadata: ["reactor": address.description])
            }
            session.joined[address] = instance
            state.sessions[id] = session
            state.idleSince[address] = nil
            return .success(instance)
        }
        switch result {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let instance):
            logger.debug("joined", metadata: ["session": id.description, "reactor": address.description])
            instance.join(id, ref: ref, since: since)
        }
    }

    private func leave(_ address: ReactorAddress, ref: JSONValue?, from id: ConnectionID) {
        guard registry.kind(named: address.kind) != nil else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let instance = state.withLock { state -> (any HubInstance)? in
            guard let instance = state.sessions[id]?.joined.removeValue(forKey: address) else { return nil }
            return instance
        }
        guard let instance else {
            return refuse(id, ProtocolError(.notJoined, "\(address) is not joined on this connection; nothing to leave"), ref: ref)
        }
        instance.leave(id)
        if instance.subscriberCount == 0 {
            state.withLock { $0.idleSince[address] = .now }
        }
        logger.debug("left", metadata: ["session": id.description, "reactor": address.description])
        channel.send(ServerMessage.left(address.description, ref: ref), to: id)
    }

    private func act(_ address: ReactorAddress, payload: JSONValue, ref: JSONValue?, from id: ConnectionID) {
        guard registry.kind(named: address.kind) != nil else {
            return refuse(id, unknownKind(address.kind), ref: ref)
        }
        let now = ContinuousClock.now
        let lookup = state.withLock { state -> Result<any HubInstance, ProtocolError> in
            if state.draining {
                return .failure(ProtocolError(.overloaded, "the server is shutting down and takes no new actions; retry on another server or later"))
            }
            guard var session = state.sessions[id], let instance = session.joined[address] else {
                return .failure(ProtocolError(.notJoined, "join \(address) before sending actions to it"))
            }
            guard session.bucket.take(now: now) else {
                return .failure(ProtocolError(
                    .rateLimited,
                    "more than \(configuration.actionsPerSecond) actions per second (burst \(configuration.actionBurst)) on this connection; slow down and retry"
                ))
            }
            state.sessions[id] = session
            return .success(instance)
        }
        switch lookup {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let instance):
            if let error = instance.dispatch(payload, from: id, ref: ref) {
                refuse(id, error, ref: ref)
            }
        }
    }

    func refuse(_ id: ConnectionID, _ error: ProtocolError, ref: JSONValue?) {
        logger.debug("refused", metadata: ["session": id.description, "code": error.code.rawValue, "message": error.message])
        channel.send(ServerMessage.error(error, ref: ref), to: id)
    }

    private func unknownKind(_ kind: String) -> ProtocolError {
        ProtocolError(.unknownReactor, "no reactor kind '\(kind)'; kinds: \(registry.names.joined(separator: ", "))")
    }
}
