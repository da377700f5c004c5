import JSON
import Logging
import Reactor
import Synchronization
import Transport

/// A shared instance of reactor `R`: its runtime, its subscribers, its versions and the
/// recent patches, and the publication of every state change to every subscriber.
///
/// Two contexts touch it. The transport's service thread joins, leaves and dispatches;
/// the runtime's serial context publishes state changes. What both need (subscribers,
/// version, current state) lives in `shared`, and every message is posted to the
/// channel while holding that lock, so a join's snapshot and the patches around it
/// reach the transport in version order: no patch can fall between snapshot and stream.
///
/// Safety of `@unchecked Sendable`: `published` is touched only from the runtime's serial
/// context (the observer), one call at a time; everything else is immutable or in `shared`.
final class ReactorInstance<R: Reactor>: HubInstance, @unchecked Sendable
where R.Action: Decodable, R.State: Encodable {
    struct Shared {
        var subscribers: [ConnectionID] = []
        var version = 0
        var epoch: String
        var state: JSONValue
        /// The compact text of `state`, built on the first join after a change.
        var stateText: [UInt8]?
        var history: PatchHistory
    }

    /// What the serial context last published, to diff the next state against.
    private struct Published {
        var state: JSONValue
        var version: Int
        var pulseCounts: [String: UInt]
    }

    let address: ReactorAddress
    let stream: StreamID
    let runtime: ReactorRuntime<R>
    private let kindName: String
    private let addressText: String
    private let channel: any OutboundChannel
    private let logger: Logger
    private let shared: Mutex<Shared>
    private var published: Published
    private var observation: RuntimeObservation?

    init(
        address: ReactorAddress,
        stream: StreamID,
        reactor: R,
        channel: any OutboundChannel,
        historyCapacity: Int,
        logger: Logger
    ) throws {
        self.address = address
        self.stream = stream
        self.addressText = address.description
        self.kindName = address.kind
        self.channel = channel
        var logger = logger
        logger[metadataKey: "reactor"] = address.description
        self.logger = logger
        self.runtime = ReactorRuntime(reactor: reactor, logger: logger)
        let initial = try StateEncoding.encode(runtime.currentState)
        self.published = Published(state: initial.state, version: 0, pulseCounts: initial.pulseCounts)
        self.shared = Mutex(Shared(epoch: Epoch.make(), state: initial.state, history: PatchHistory(capacity: historyCapacity)))
    }

    /// Starts publishing state changes; called once, right after creation.
    func startPublishing() {
        observation = runtime.observe { [weak self] event in
            guard let self, case .state(let state) = event else { return }
            self.publish(state)
        }
    }

    var subscriberCount: Int {
        shared.withLock { $0.subscribers.count }
    }

    var version: Int {
        shared.withLock { $0.version }
    }

    // MARK: Service-thread side

    func join(_ id: ConnectionID, ref: JSONValue?, since: ClientMessage.ResumePoint?) {
        shared.withLock { shared in
            let wasSubscribed = shared.subscribers.contains(id)
            if !wasSubscribed {
                shared.subscribers.append(id)
            }
            if let since, !wasSubscribed, since.epoch == shared.epoch, since.version <= shared.version,
               let missed = shared.history.frames(after: since.version, current: shared.version)
            {
                channel.send(
                    ServerMessage.resumed(addressText, ref: ref, epoch: shared.epoch, version: shared.version, stream: stream),
                    to: id
                )
                for frame in missed {
                    channel.send(frame, to: id)
                }
                return
            }
            channel.send(snapshot(&shared, ref: ref), to: id)
        }
    }

    @discardableResult
    func leave(_ id: ConnectionID) -> Bool {
        shared.withLock { shared in
            guard let index = shared.subscribers.firstIndex(of: id) else { return false }
            shared.subscribers.remove(at: index)
            return true
        }
    }

    func resync(_ id: ConnectionID) {
        shared.withLock { shared in
            guard shared.subscribers.contains(id) else { return }
            channel.send(snapshot(&shared, ref: nil), to: id)
        }
    }

    private func snapshot(_ shared: inout Shared, ref: JSONValue?) -> OutboundMessage {
        let text: [UInt8]
        if let cached = shared.stateText {
            text = cached
        } else {
            var writer = JSONWriter()
            writer.writeValue(shared.state)
            text = writer.bytes
            shared.stateText = text
        }
        return ServerMessage.snapshot(
            addressText, ref: ref, epoch: shared.epoch, version: shared.version, state: text, stream: stream
        )
    }

    func dispatch(_ payload: JSONValue, from id: ConnectionID, ref: JSONValue?) -> ProtocolError? {
        let action: R.Action
        do {
            action = try ActionDecoder().decode(R.Action.self, from: payload)
        } catch {
            return ProtocolError(error, kind: kindName)
        }
        let channel = self.channel
        let address = addressText
        runtime.send(action) { [weak self] outcome in
            switch outcome {
            case .accepted:
                guard let ref, let self else { return }
                channel.send(ServerMessage.ack(address, ref: ref, version: self.published.version), to: id)
            case .refused(let refusal):
                channel.send(ServerMessage.error(ProtocolError(.invalidAction, refusal.message), ref: ref), to: id)
            case .failed(let message):
                self?.logger.error("action failed", metadata: ["session": id.description, "error": message])
                channel.send(ServerMessage.error(ProtocolError(.internal, "the action failed: \(message)"), ref: ref), to: id)
            }
        }
        return nil
    }

    func waitUntilIdle() async {
        await runtime.waitUntilIdle()
    }

    func compact() {
        shared.withLock { shared in
            shared.history.removeAll()
            shared.stateText = nil
        }
    }

    // MARK: Serial-context side

    /// Encodes and diffs a new state once, then posts the same patch frame and pulse
    /// frames to every subscriber. Equal states send nothing.
    private func publish(_ state: R.State) {
        let encoded: StateEncoding.Encoded
        do {
            encoded = try StateEncoding.encode(state)
        } catch {
            logger.error("state could not be encoded; change not published", metadata: ["error": "\(error)"])
            return
        }
        let operations = JSONPatch.diff(from: published.state, to: encoded.state)
        var pulses: [(name: String, value: JSONValue)] = []
        for pulse in encoded.pulses where published.pulseCounts[pulse.name] != pulse.updateCount {
            published.pulseCounts[pulse.name] = pulse.updateCount
            pulses.append((pulse.name, pulse.value))
        }
        guard !operations.isEmpty || !pulses.isEmpty else { return }

        var patchFrame: OutboundMessage?
        if !operations.isEmpty {
            published.version += 1
            published.state = encoded.state
            var writer = JSONWriter()
            writer.writePatch(operations)
            patchFrame = ServerMessage.patch(
                addressText, version: published.version, base: published.version - 1, operations: writer.bytes, stream: stream
            )
        }
        let version = published.version
        let pulseFrames = pulses.map { pulse in
            ServerMessage.pulse(addressText, version: version, name: pulse.name, value: pulse.value, stream: stream)
        }
        shared.withLock { shared in
            if let patchFrame {
                shared.version = version
                shared.state = encoded.state
                shared.stateText = nil
                shared.history.append(patchFrame, version: version)
                channel.send(patchFrame, to: shared.subscribers)
            }
            for frame in pulseFrames {
                channel.send(frame, to: shared.subscribers)
            }
        }
    }
}
