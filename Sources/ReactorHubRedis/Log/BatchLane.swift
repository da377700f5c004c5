import ReactorHubEngine
import ReactorHubLocking

/// A serial lane between threads and one consuming task that takes everything queued at
/// once: the applier of a replica delivers a run of entries as merged frames, the
/// forwarder posts a run of actions in one inbox entry. `yield` never blocks.
final class BatchLane<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiter: CheckedContinuation<[Element]?, Never>?
        var finished = false
    }

    private let state = Locked(State())

    private enum Ready {
        case items([Element]), end, wait
    }

    /// Queues `element`; false (dropped) once the lane is finished.
    @discardableResult
    func yield(_ element: Element) -> Bool {
        let (taken, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[Element]?, Never>?) in
            guard !state.finished else { return (false, nil) }
            guard let waiter = state.waiter else {
                state.items.append(element)
                return (true, nil)
            }
            state.waiter = nil
            return (true, waiter)
        }
        waiter?.resume(returning: [element])
        return taken
    }

    /// Ends the lane: the consumer gets what is queued, then nil.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[Element]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Everything queued, in order, waiting for at least one element; nil once finished.
    func next() async -> [Element]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
            let ready = state.withLock { state -> Ready in
                if !state.items.isEmpty {
                    defer { state.items = [] }
                    return .items(state.items)
                }
                if state.finished { return .end }
                state.waiter = continuation
                return .wait
            }
            switch ready {
            case .items(let items): continuation.resume(returning: items)
            case .end: continuation.resume(returning: nil)
            case .wait: break
            }
        }
    }
}
