import ReactorHubLocking
/// The state everyone reads (`currentState`) and the observers to tell when it changes, updated
/// together so that a new observer gets either the old state and the change, or the new state.
///
/// `@unchecked Sendable`: `current` and `observers` are only touched while holding `lock`. A
/// plain lock and fields, rather than a lock around a generic struct, keep the per-reduce path
/// free of generic metadata lookups.
final class PublishedState<State: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var current: State
    private var observers: [RuntimeObserver<State>] = []

    init(_ state: State) {
        self.current = state
    }

    var state: State {
        lock.withLock { current }
    }

    var allObservers: [RuntimeObserver<State>] {
        lock.withLock { observers }
    }

    /// Sets the state and returns the observers to tell.
    @inline(__always)
    func publish(_ state: State) -> [RuntimeObserver<State>] {
        lock.withLock {
            current = state
            return observers
        }
    }

    /// Sets the state without telling anyone yet (a stub state, told from the serial context).
    func set(_ state: State) {
        lock.withLock { current = state }
    }

    /// Adds `observer`, first handing `start` the state it starts from.
    func add(_ observer: RuntimeObserver<State>, start: (State) -> Void = { _ in }) {
        lock.withLock {
            start(current)
            observers.append(observer)
        }
    }

    func remove(_ observer: RuntimeObserver<State>) {
        lock.withLock {
            observers.removeAll { $0 === observer }
        }
    }

    func removeAll() -> [RuntimeObserver<State>] {
        lock.withLock {
            defer { observers.removeAll() }
            return observers
        }
    }
}
