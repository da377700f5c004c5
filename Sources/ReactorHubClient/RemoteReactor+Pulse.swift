import ReactorHubJSON
import ReactorHubLogging
public import Reactor

/// Pulses of a remote reactor, as ReactorKit's `reactor.pulse(\.$alertMessage)`.
extension RemoteReactor {
    /// The values assigned to a `@Pulse` property of the remote reactor from now on, one
    /// per assignment (equal values included), never replayed: a new stream sees only
    /// pulses that fire after it was made. Keeps up to `HubClientOptions.pulseBufferLimit`
    /// values for a reader that falls behind. Ends when the reactor is left.
    ///
    /// The property is found by decoding a probe state in which each pulse the kind has
    /// (`hello` lists them) fired a different number of times; a property it cannot name
    /// gives a stream that ends at once (and a warning).
    public func pulse<Value: Decodable & Sendable>(_ keyPath: KeyPath<State, Pulse<Value>>) -> AsyncStream<Value> {
        guard let name = pulseName(of: keyPath) else {
            hub.logger.warning("cannot tell which pulse this key path names; use pulse(named:)", metadata: ["reactor": address])
            return AsyncStream { $0.finish() }
        }
        return pulse(named: name, as: Value.self)
    }

    /// The values of the pulse the server sends as `name`, decoded as `Value`; see
    /// `pulse(_:)`. A value that does not decode is logged and skipped.
    public func pulse<Value: Decodable & Sendable>(named name: String, as type: Value.Type = Value.self) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(hub.engine.options.pulseBufferLimit))
        let logger = hub.logger
        let address = address
        let sink = ReplicaPublisher.PulseSink(
            name: name,
            deliver: { json in
                do {
                    continuation.yield(try JSONValueDecoder().decode(Value.self, from: json))
                } catch {
                    logger.warning("a pulse value does not decode; skipped", metadata: ["reactor": address, "pulse": name, "error": "\(error)"])
                }
            },
            finish: { continuation.finish() }
        )
        let token = publisher.add(sink)
        let publisher = publisher
        continuation.onTermination = { _ in publisher.removeSink(token) }
        return stream
    }

    /// The wire name of the pulse at `keyPath`: decode a state in which pulse number `i`
    /// of the known names fired `i + 1` times, and read the count back.
    func pulseName<Value>(of keyPath: KeyPath<State, Pulse<Value>>) -> String? {
        let revision = revision
        var names = pulseNames
        for name in revision.pulses.keys.sorted() where !names.contains(name) {
            names.append(name)
        }
        guard !names.isEmpty else { return nil }
        var probe: [String: FiredPulse] = [:]
        for (index, name) in names.enumerated() {
            probe[name] = FiredPulse(count: UInt(index + 1), value: revision.pulses[name]?.value ?? .null)
        }
        let probeRevision = Revision(
            number: 0, state: revision.state, confirmedState: revision.confirmedState, pendingCount: revision.pendingCount,
            version: revision.version, epoch: revision.epoch, pulses: probe, cause: .pulse
        )
        guard let state = try? decode(probeRevision) else { return nil }
        let count = Int(state[keyPath: keyPath].valueUpdatedCount)
        return names.indices.contains(count - 1) ? names[count - 1] : nil
    }
}
