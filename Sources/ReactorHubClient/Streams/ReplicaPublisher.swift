import ReactorHubJSON
import ReactorHubLocking

/// Where the engine publishes a remote reactor's revisions and pulses, and where the
/// reactor's handles read them from any thread: the latest revision (for `currentState`),
/// the state streams' slots and the pulse streams' sinks.
final class ReplicaPublisher: Sendable {
    /// A pulse stream: the pulse it follows and what to do with each value.
    struct PulseSink: Sendable {
        let name: String
        let deliver: @Sendable (JSONValue) -> Void
        let finish: @Sendable () -> Void
    }

    private struct Contents {
        var latest: Revision?
        var nextNumber: UInt64 = 0
        var nextToken = 0
        var slots: [Int: RevisionSlot] = [:]
        var sinks: [Int: PulseSink] = [:]
        var ending: HubClientError?
    }

    let address: String
    /// Everyone's presence in the reactor.
    let presence = PresencePublisher()
    private let contents = Locked(Contents())

    init(address: String) {
        self.address = address
    }

    /// The latest revision, nil before the first snapshot.
    var latest: Revision? { contents.withLock { $0.latest } }

    /// Why the reactor ended (left, closed), once it did.
    var ending: HubClientError? { contents.withLock { $0.ending } }

    /// Publishes a new state (or pulse count) and offers it to every state stream.
    func publish(state: JSONValue, version: Int, epoch: String, pulses: [String: FiredPulse], cause: Revision.Cause) {
        let (revision, slots) = contents.withLock { contents -> (Revision, [RevisionSlot]) in
            contents.nextNumber += 1
            let revision = Revision(number: contents.nextNumber, state: state, version: version, epoch: epoch, pulses: pulses, cause: cause)
            contents.latest = revision
            return (revision, Array(contents.slots.values))
        }
        for slot in slots {
            slot.offer(revision)
        }
    }

    /// Hands a pulse's value to every pulse stream that follows `name`.
    func publishPulse(name: String, value: JSONValue) {
        let sinks = contents.withLock { contents in contents.sinks.values.filter { $0.name == name } }
        for sink in sinks {
            sink.deliver(value)
        }
    }

    /// Registers a state stream; it gets the latest revision at once (ReactorKit replays
    /// the current state to a new subscriber). Returns its token.
    func add(_ slot: RevisionSlot) -> Int {
        let (token, latest, ended) = contents.withLock { contents -> (Int, Revision?, Bool) in
            contents.nextToken += 1
            if contents.ending == nil {
                contents.slots[contents.nextToken] = slot
            }
            return (contents.nextToken, contents.latest, contents.ending != nil)
        }
        if let latest { slot.offer(latest) }
        if ended { slot.finish() }
        return token
    }

    func removeSlot(_ token: Int) {
        contents.withLock { _ = $0.slots.removeValue(forKey: token) }
    }

    /// Registers a pulse stream; returns its token.
    func add(_ sink: PulseSink) -> Int {
        let (token, ended) = contents.withLock { contents -> (Int, Bool) in
            contents.nextToken += 1
            if contents.ending == nil {
                contents.sinks[contents.nextToken] = sink
            }
            return (contents.nextToken, contents.ending != nil)
        }
        if ended { sink.finish() }
        return token
    }

    func removeSink(_ token: Int) {
        contents.withLock { _ = $0.sinks.removeValue(forKey: token) }
    }

    /// Ends every stream: the reactor was left, or the client closed.
    func finish(_ reason: HubClientError) {
        let (slots, sinks) = contents.withLock { contents -> ([RevisionSlot], [PulseSink]) in
            guard contents.ending == nil else { return ([], []) }
            contents.ending = reason
            defer {
                contents.slots = [:]
                contents.sinks = [:]
            }
            return (Array(contents.slots.values), Array(contents.sinks.values))
        }
        slots.forEach { $0.finish() }
        sinks.forEach { $0.finish() }
    }

    /// State streams registered (tests).
    var slotCount: Int { contents.withLock { $0.slots.count } }
}
