package import ReactorHubJSON
package import ReactorHubProtocol
package import ReactorHubStore
package import Reactor

/// An instance of a single daemon: a cluster of one, whose owner is always here and whose
/// log is in-process (`LocalLog`, on the state store). The owner and the view are the
/// engine's one owner and one view, exactly as on a node of a cluster.
package final class LocalInstance<R: Reactor>: ViewedInstance, Sendable where R.Action: Decodable, R.State: Codable {
    /// Where a restored instance starts: its decoded state and what the store kept.
    package struct Restored {
        package var state: R.State
        package var stored: StoredInstance
    }

    package let view: InstanceView
    package let owner: InstanceOwner<R>
    package let log: LocalLog
    /// Who joined, for the reactor's joins and leaves.
    package let members = Members()

    package init(address: ReactorAddress, reactor: R, restored: Restored?, context: ReactorKind.InstanceContext) throws {
        let epoch: String
        let version: Int
        let committed: JSONValue
        var history: [PatchFrame] = []
        if let stored = restored?.stored {
            epoch = stored.epoch
            version = stored.version
            committed = stored.state
            history = Self.frames(restoring: stored.patches, address: address.description, version: version, codec: context.codec)
        } else {
            epoch = Epoch.make()
            version = 0
            committed = try StateEncoding.encode(reactor.transform(state: reactor.initialState)).state
        }
        let view = InstanceView(address: address, context: context, start: .init(epoch: epoch, version: version, state: committed, history: history))
        let log = LocalLog(view: view, address: address, epoch: epoch, version: version, context: context)
        self.view = view
        self.log = log
        self.owner = InstanceOwner(
            address: address, reactor: reactor, restored: restored?.state, committed: committed, version: version, context: context, log: log
        )
        if context.fresh {
            context.store.record(StoredChange(
                address: address, epoch: epoch, version: 0, state: committed, patch: nil, keepPatches: context.historyCapacity
            ))
        }
        try owner.start()
    }

    /// The stored patch frames that still chain up to `version`, as frames; a frame that
    /// no longer parses ends the usable history there.
    private static func frames(restoring patches: [StoredPatch], address: String, version: Int, codec: any MessageCodec) -> [PatchFrame] {
        var frames: [PatchFrame] = []
        for patch in patches {
            guard let frame = try? JSONParser().parse(patch.frame), let operations = frame["patch"] else {
                frames = []
                continue
            }
            var writer = JSONWriter()
            writer.writeValue(operations)
            let base = frame["base"]?.intValue ?? (patch.version - 1)
            if let last = frames.last, last.version != base { frames = [] }
            frames.append(codec.patch(address, version: patch.version, base: base, operations: writer.bytes))
        }
        return frames.last?.version == version ? frames : []
    }

    package var isIdle: Bool {
        owner.isIdle && log.isSettled
    }

    package func join(
        _ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?, checksums: Bool, sender: Sender
    ) -> ProtocolError? {
        let view = self.view
        if let refusal = JoinRule.refusal(by: owner.runtime.reactor, of: sender, state: { view.committedState }) {
            return refusal
        }
        if view.join(output, ref: ref, since: since, checksums: checksums), let membership = members.join(output.id, sender) {
            owner.send(membership)
        }
        return nil
    }

    @discardableResult
    package func leave(_ id: ConnectionID) -> Bool {
        let left = view.leave(id)
        if left { view.setPresence(id.description, user: nil, state: nil) }
        if let membership = members.leave(id) { owner.send(membership) }
        return left
    }

    package func dispatch(
        _ payload: ActionPayload, from output: ConnectionOutput, sender: Sender, id: String?, ref: Ref?, receivedAt: ContinuousClock.Instant
    ) -> ProtocolError? {
        let action: R.Action
        var name = ""
        do {
            action = try ActionDecoder().decode(R.Action.self, from: payload, name: &name)
        } catch {
            return ProtocolError(error, kind: view.address.kind)
        }
        let origin = InstanceOwner<R>.Origin(
            target: .connection(output), ref: ref, sender: sender, connection: output, receivedAt: receivedAt,
            action: view.context.events == nil ? nil : payload.value
        )
        owner.dispatch(action, from: origin, id: id, label: view.context.actionLabels.label(named: name))
        return nil
    }

    package func setPresence(_ output: ConnectionOutput, user: String?, state: [UInt8]?, ref: Ref?) {
        view.setPresence(output.id.description, user: user, state: state)
        if let ref {
            let version = view.position.version
            view.reply(view.context.codec.ack(view.addressText, ref: ref, version: version, applied: version), to: output)
        }
    }

    package func retire() -> [Subscriber] {
        owner.retire()
        return view.retire()
    }

    package func waitUntilIdle() async {
        await owner.waitUntilIdle()
    }
}
