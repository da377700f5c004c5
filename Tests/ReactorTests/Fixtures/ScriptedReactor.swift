import Reactor

/// A reactor whose actions carry their effect, for testing effect semantics one by one; the
/// state is the log of reduced mutations.
final class ScriptedReactor: Reactor {
    struct Action: Sendable, CustomStringConvertible {
        var name: String
        var effect: @Sendable (ScriptedReactor) -> Effect<String>

        init(_ name: String, _ effect: @escaping @Sendable (ScriptedReactor) -> Effect<String>) {
            self.name = name
            self.effect = effect
        }

        var description: String { name }
    }

    typealias Mutation = String
    typealias State = [String]

    let initialState: State = []
    private let external: Effect<String>

    init(externalMutations: Effect<String> = .none) {
        self.external = externalMutations
    }

    var externalMutations: Effect<String> {
        external
    }

    func mutate(action: Action) -> Effect<String> {
        action.effect(self)
    }

    func reduce(state: State, mutation: String) -> State {
        state + [mutation]
    }
}
