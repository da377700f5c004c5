/// The immediate part of an effect: the mutations a runtime reduces before it takes the next
/// action (PROTOCOL.md "Acks", `applied`), which is what a client may predict.
extension Effect {
    /// Hands `body` each mutation this effect produces at once, in the order a runtime reduces
    /// them, and returns whether the effect completed without waiting.
    ///
    /// Immediate are `just`, `concat` up to its first part that waits, every part of `merge` up
    /// to where that part waits, `deferred` (built when it is reached, after `body` saw the
    /// mutations before it), and `cancellable` parts. `delay` and `run` wait: nothing of them or
    /// after them in a `concat` is immediate, and their work never runs here. `cancel` does
    /// nothing here (there is nothing in flight to cancel).
    @discardableResult
    public func forEachImmediateMutation(_ body: (Mutation) throws -> Void) rethrows -> Bool {
        switch operation {
        case .none, .cancel:
            return true
        case .one(let mutation):
            try body(mutation)
            return true
        case .many(let mutations):
            try mutations.forEach(body)
            return true
        case .concat(let parts):
            for part in parts {
                guard try part.forEachImmediateMutation(body) else { return false }
            }
            return true
        case .merge(let parts):
            var completed = true
            for part in parts {
                if try !part.forEachImmediateMutation(body) { completed = false }
            }
            return completed
        case .deferred(let build):
            return try build().forEachImmediateMutation(body)
        case .delayed, .run:
            return false
        case .cancellable(let effect, _, _):
            return try effect.forEachImmediateMutation(body)
        }
    }

    /// The mutations this effect produces at once, in order (see
    /// `forEachImmediateMutation(_:)`). A `deferred` part is built when the list is made, so it
    /// sees the state as it was before any of these mutations; a predictor that reduces as it
    /// goes uses `forEachImmediateMutation(_:)` instead.
    public var immediateMutations: [Mutation] {
        var mutations: [Mutation] = []
        forEachImmediateMutation { mutations.append($0) }
        return mutations
    }
}
