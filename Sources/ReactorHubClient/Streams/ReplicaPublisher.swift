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
        /// State streams, and whether each wants only revisions that change what it shows.
        var slots: [Int: (slot: RevisionSlot, changesOnly: Bool)] = [:]
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

    /// Publishes a new revision and offers it to every revision stream, and to the state
    /// streams when `changesShown` (the shown state or the pulse counts differ from the last
    /// revision's: a change of the pending actions alone, or a patch the client had
    /// predicted, is not a new state).
    func publish(
        state: JSONValue, confirmed: JSONValue, pendingCount: Int, version: Int, epoch: String,
        pulses: [String: FiredPulse], cause: Revision.Cause, changesShown: Bool
    ) {
        let (revision, slots) = contents.withLock { contents -> (Revision, [RevisionSlot]) in
            contents.nextNumber += 1
            let revision = Revision(
                number: contents.nextNumber, state: state, confirmedState: confirmed, pendingCount: pendingCount,
                version: version, epoch: epoch, pulses: pulses, cause: cause
            )
            contents.latest = revision
            return (revision, contents.slots.values.filter { changesShown || !$0.changesOnly }.map(\.slot))
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

    /// Registers a state stream (`changesOnly`: offered only revisions that change the shown
    /// state or the pulses); it gets the latest revision at once (ReactorKit replays the
    /// current state to a new subscriber). Returns its token.
    func add(_ slot: RevisionSlot, changesOnly: Bool) -> Int {
        let (token, latest, ended) = contents.withLock { contents -> (Int, Revision?, Bool) in
            contents.nextToken += 1
            if contents.ending == nil {
                contents.slots[contents.nextToken] = (slot, changesOnly)
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
            return (contents.slots.values.map(\.slot), Array(contents.sinks.values))
        }
        slots.forEach { $0.finish() }
        sinks.forEach { $0.finish() }
    }

    /// State streams registered (tests).
    var slotCount: Int { contents.withLock { $0.slots.count } }
}
