import ReactorHubLocking
import Reactor

/// The states a `TestStore` has received and not yet asserted, and the last asserted one.
final class StateLog<State: Sendable>: Sendable {
    private struct Contents {
        var asserted: State
        var received: [State] = []
        var isFinished = false
    }

    private let contents: Locked<Contents>

    init(_ state: State) {
        self.contents = Locked(Contents(asserted: state))
    }

    var asserted: State {
        contents.withLock { $0.asserted }
    }

    var isFinished: Bool {
        contents.withLock { $0.isFinished }
    }

    func receive(_ state: State) {
        contents.withLock { $0.received.append(state) }
    }

    /// The last asserted state and the next received one, which becomes the asserted state.
    func takeNext() -> (previous: State, next: State)? {
        contents.withLock { contents in
            guard !contents.received.isEmpty else { return nil }
            let previous = contents.asserted
            contents.asserted = contents.received.removeFirst()
            return (previous, contents.asserted)
        }
    }

    /// The last asserted state and every received one, all of which count as asserted now.
    func takeAll() -> (start: State, changes: [State]) {
        contents.withLock { contents in
            let start = contents.asserted
            let changes = contents.received
            if let last = changes.last {
                contents.asserted = last
            }
            contents.received.removeAll()
            return (start, changes)
        }
    }

    func finish() {
        contents.withLock { $0.isFinished = true }
    }
}

/// The outcome of one sent action, set from the runtime's serial context.
final class OutcomeBox: Sendable {
    private let outcome = Locked<ActionOutcome?>(nil)

    var value: ActionOutcome? {
        outcome.withLock { $0 }
    }

    func set(_ value: ActionOutcome) {
        outcome.withLock { $0 = value }
    }
}
