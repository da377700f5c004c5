import Reactor
import Synchronization

/// Counts actions from numbered senders and checks that each sender's actions arrive in the
/// order sent and that no two reduces ever overlap.
final class SequenceReactor: Reactor {
    enum Action: Sendable {
        case record(sender: Int, sequence: Int)
    }

    struct State: Sendable, Equatable {
        var total = 0
        /// The next sequence number expected from each sender.
        var next: [Int]
        var outOfOrder = 0
    }

    let initialState: State
    /// Reduces that started while another one was running.
    let overlappingReduces = Atomic(0)
    private let isReducing = Atomic(false)

    init(senders: Int) {
        self.initialState = State(next: Array(repeating: 0, count: senders))
    }

    func reduce(state: State, mutation: Action) -> State {
        if isReducing.exchange(true, ordering: .acquiringAndReleasing) {
            overlappingReduces.add(1, ordering: .relaxed)
        }
        defer { isReducing.store(false, ordering: .releasing) }
        var state = state
        switch mutation {
        case .record(let sender, let sequence):
            if state.next[sender] != sequence {
                state.outOfOrder += 1
            }
            state.next[sender] = sequence + 1
            state.total += 1
        }
        return state
    }
}

/// Records every call the pipeline makes into it.
final class SpyReactor: Reactor {
    typealias Action = String
    typealias State = [String]

    let initialState: State = []
    let calls = Recorder<String>()

    func transform(action: Action) -> Action {
        calls.append("transform(action:)")
        return action
    }

    func mutate(action: Action) -> Effect<Action> {
        calls.append("mutate")
        return .just(action)
    }

    func transform(mutation: Action) -> Action {
        calls.append("transform(mutation:)")
        return mutation
    }

    func reduce(state: State, mutation: Action) -> State {
        calls.append("reduce")
        return state + [mutation]
    }

    func transform(state: State) -> State {
        calls.append("transform(state:)")
        return state
    }
}
