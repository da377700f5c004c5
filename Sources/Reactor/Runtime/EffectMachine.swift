/// The state of a runtime that only its serial context touches: the reduced state (before
/// `transform(state:)`) and the effects in flight.
///
/// `@unchecked Sendable` because it is shared by reference with the drains of one runtime, which
/// never run at the same time: `Inbox.append` hands out the right to drain only when no drain is
/// running, and a drain gives it back in `Inbox.finishDrain`, whose lock orders one drain's
/// writes before the next one's reads. The runtime's `deinit` also touches it, when no drain can
/// run (a drain keeps its runtime alive).
final class EffectMachine<R: Reactor>: @unchecked Sendable {
    var reducedState: R.State
    /// Timers not fired yet and effect tasks not finished yet, by operation id.
    var operations: [Int: EffectOperation<R>] = [:]
    /// Scopes of effects not completed yet, by scope id.
    var scopes: [Int: EffectScope<R>] = [:]
    /// Open scopes marked `cancellable(id:)`, by effect id.
    var scopesByEffectID: [EffectID: Set<Int>] = [:]
    private var lastID = 0

    init(reducedState: R.State) {
        self.reducedState = reducedState
    }

    func nextID() -> Int {
        lastID += 1
        return lastID
    }
}

/// A region of a running effect that can be cancelled as a whole: the effect of one action (a
/// root), or a part marked `cancellable(id:)`.
///
/// Scopes point to their parent only; they know their children and operations by id, so that
/// the machine's tables own everything and nothing forms a cycle.
final class EffectScope<R: Reactor> {
    let id: Int
    let parent: EffectScope?
    let effectID: EffectID?
    /// The action whose effect this is, for logs; nil for `externalMutations`.
    let action: R.Action?
    /// The action's name in a trap report.
    let label: TrapLabel?
    var isCancelledHere = false
    var childIDs: Set<Int> = []
    var operationIDs: Set<Int> = []

    init(id: Int, parent: EffectScope?, effectID: EffectID?, action: R.Action?, label: TrapLabel? = nil) {
        self.label = label
        self.id = id
        self.parent = parent
        self.effectID = effectID
        self.action = action
    }

    var isCancelled: Bool {
        isCancelledHere || (parent?.isCancelled ?? false)
    }
}

/// A timer (`delay`) or an effect task (`run`) in flight.
final class EffectOperation<R: Reactor> {
    enum Kind {
        case timer(then: Effect<R.Mutation>, work: ScheduledWork?)
        case task(Task<Void, Never>?)
    }

    let id: Int
    let parent: EffectFrame<R>
    let scope: EffectScope<R>
    var kind: Kind
    /// Whether `parent` has been told; a cancelled task stays in flight until it returns.
    var isCompleted = false

    init(id: Int, parent: EffectFrame<R>, scope: EffectScope<R>, kind: Kind) {
        self.id = id
        self.parent = parent
        self.scope = scope
        self.kind = kind
    }
}

/// Something that waits for a part of an effect to complete, in the serial context.
class EffectFrame<R: Reactor> {
    /// The part this frame waited for has completed (or was cancelled).
    func childCompleted(in runtime: ReactorRuntime<R>) {}
}

/// The end of a root effect: closes its scope.
final class RootFrame<R: Reactor>: EffectFrame<R> {
    let scope: EffectScope<R>

    init(scope: EffectScope<R>) {
        self.scope = scope
    }

    override func childCompleted(in runtime: ReactorRuntime<R>) {
        runtime.close(scope)
    }
}

/// Runs parts one after another: the next starts once the previous has completed.
final class ConcatFrame<R: Reactor>: EffectFrame<R> {
    private let parts: [Effect<R.Mutation>]
    private var next = 0
    private let parent: EffectFrame<R>
    private let scope: EffectScope<R>

    init(parts: [Effect<R.Mutation>], parent: EffectFrame<R>, scope: EffectScope<R>) {
        self.parts = parts
        self.parent = parent
        self.scope = scope
    }

    /// Runs parts until one suspends; returns true if all completed (or the scope was cancelled).
    func advance(in runtime: ReactorRuntime<R>) -> Bool {
        while next < parts.count, !scope.isCancelled {
            let part = parts[next]
            next += 1
            if !runtime.execute(part, parent: self, scope: scope) {
                return false
            }
        }
        return true
    }

    override func childCompleted(in runtime: ReactorRuntime<R>) {
        if advance(in: runtime) {
            parent.childCompleted(in: runtime)
        }
    }
}

/// Runs parts at the same time and completes when the last one does.
final class MergeFrame<R: Reactor>: EffectFrame<R> {
    private let parent: EffectFrame<R>
    /// Parts not completed, plus one while the parts are being started.
    private var pending: Int

    init(parent: EffectFrame<R>, count: Int) {
        self.parent = parent
        self.pending = count + 1
    }

    /// Starts every part; returns true if all completed synchronously.
    func start(_ parts: [Effect<R.Mutation>], scope: EffectScope<R>, in runtime: ReactorRuntime<R>) -> Bool {
        for part in parts {
            if runtime.execute(part, parent: self, scope: scope) {
                pending -= 1
            }
        }
        pending -= 1
        return pending == 0
    }

    override func childCompleted(in runtime: ReactorRuntime<R>) {
        pending -= 1
        if pending == 0 {
            parent.childCompleted(in: runtime)
        }
    }
}

/// The end of a `cancellable(id:)` part: closes its scope, then tells the parent.
final class ScopeFrame<R: Reactor>: EffectFrame<R> {
    private let scope: EffectScope<R>
    private let parent: EffectFrame<R>

    init(scope: EffectScope<R>, parent: EffectFrame<R>) {
        self.scope = scope
        self.parent = parent
    }

    override func childCompleted(in runtime: ReactorRuntime<R>) {
        runtime.close(scope)
        parent.childCompleted(in: runtime)
    }
}
