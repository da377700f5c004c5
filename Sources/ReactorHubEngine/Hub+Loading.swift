import ReactorHubProtocol
import Dispatch
import Reactor
import ReactorHubLogging

/// Instances are created off the service thread: a store read (SQLite, or Redis in a
/// cluster) and the initial encode can take their time without stalling any socket.
extension Hub {
    private static let loader = DispatchQueue(label: "reactorhub-loader", attributes: .concurrent)

    /// What an instance of `slot` gets from the hub.
    func instanceContext(for slot: InstanceSlot, fresh: Bool = false) -> ReactorKind.InstanceContext {
        var instanceLogger = logger
        instanceLogger[metadataKey: "reactor"] = slot.address.description
        return ReactorKind.InstanceContext(
            stream: slot.stream,
            delivery: delivery,
            codec: codec,
            metrics: metrics,
            historyCapacity: configuration.historyPatches,
            historyBytes: configuration.historyBytes,
            presenceMaxListed: configuration.presenceMaxListed,
            load: load,
            store: store,
            durableAcks: configuration.durableAcks,
            logger: instanceLogger,
            dedupeWindow: configuration.dedupeWindow,
            dedupeEntries: configuration.dedupeEntries,
            trapLabel: TrapLabel(slot.address.description),
            actionLabels: registry.kind(named: slot.address.kind)?.actionLabels ?? ActionLabels(),
            fresh: fresh,
            events: configuration.events
        )
    }

    /// Creates the instance of a new slot on the loader queue, then replays what queued.
    func load(_ slot: InstanceSlot, kind: ReactorKind) {
        let context = instanceContext(for: slot)
        if let cluster {
            // Clustered: read from Redis (and take the lease when free) in a task.
            Task { [self] in
                let result = await kind.makeHosted(cluster, slot.address, context)
                if case .failure(let error) = result {
                    logger.warning("could not serve instance", metadata: ["reactor": slot.address.description, "error": error.message])
                }
                complete(slot, result)
            }
            return
        }
        Self.loader.async { [self] in
            let result: Result<any HubInstance, ProtocolError>
            do {
                result = .success(try kind.makeInstance(slot.address, context))
                logger.debug("instance created", metadata: ["reactor": slot.address.description])
            } catch {
                logger.error("could not create instance", metadata: ["reactor": slot.address.description, "error": "\(error)"])
                result = .failure(ProtocolError(.internal, "\(slot.address) could not be created: \(error)"))
            }
            complete(slot, result)
        }
    }

    /// Settles a load: a new instance this node owns is told to whoever hears instance
    /// events (`instance.created`, before anything the requests that waited cause), the
    /// requests that waited are replayed, and a failed slot is forgotten.
    private func complete(_ slot: InstanceSlot, _ result: Result<any HubInstance, ProtocolError>) {
        if case .success(let instance) = result, let events = configuration.events, instance.isOwner {
            events.emit(.created, in: slot.address) {
                let (epoch, version) = instance.position
                return .created(slot.address, epoch: epoch, version: version)
            }
        }
        slot.complete(result) { route, request in
            perform(request, route: route, address: slot.address)
        }
        if case .failure = result {
            forgetFailed(slot)
        }
    }

    /// Removes a slot whose instance could not be created, so that the next join retries.
    private func forgetFailed(_ slot: InstanceSlot) {
        state.withLock { state in
            guard state.slots[slot.address] === slot else { return }
            state.release(slot)
            state.slots[slot.address] = nil
            state.slotsByStream[slot.stream] = nil
            state.joinedCount[slot.address] = nil
            state.idleSince[slot.address] = nil
            for (id, var session) in state.sessions where session.joined[slot.address] === slot {
                session.joined[slot.address] = nil
                state.sessions[id] = session
            }
        }
    }

    /// Asks each instance of `streams` for a fresh snapshot for `id`, whose outbox has
    /// drained after its updates were shed. Encoding a snapshot can take a while for a
    /// large state, so it happens off the service thread.
    func resynchronize(_ id: ConnectionID, streams: [StreamID]) {
        let instances = state.withLock { state in
            streams.compactMap { state.slotsByStream[$0]?.instance }
        }
        for instance in instances {
            logger.debug("resync after lag", metadata: ["session": id.description, "reactor": instance.address.description])
            Self.loader.async {
                instance.resync(id)
            }
        }
    }
}
