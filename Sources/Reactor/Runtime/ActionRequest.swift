/// What comes with an action into a runtime's inbox besides the action itself: who sent it,
/// the host's side of it, and the label a trap report names it by.
struct ActionRequest: Sendable {
    /// Who sent it (`Reactor.mutate(action:from:)`); nil: the server itself.
    var sender: Sender?
    /// Asked when the action's turn comes and told what became of it; nil: nobody asks.
    var host: (any ActionHost)?
    /// The action's name in a trap report (a string that lives as long as the process).
    var label: TrapLabel?

    /// Whether the action is still to be processed when its turn comes.
    func admits() -> Bool {
        host?.admits() ?? true
    }

    /// Reports what became of the action, right after `mutate`.
    func complete(_ outcome: ActionOutcome) {
        host?.answer(outcome)
    }

    /// Reports that the action's immediate mutations are reduced (accepted actions only).
    func didApply() {
        host?.applied()
    }
}

/// The host's side of one action, as `ReactorRuntime.send(_:from:label:host:)` takes it:
/// asked whether the action still runs when its turn comes, told its outcome right after
/// `mutate`, and told once its immediate mutations are reduced (accepted actions only),
/// each in the serial context. A hub's ticket is one object where the closures of
/// `send(_:admit:completion:applied:)` were three allocations per action.
package protocol ActionHost: AnyObject, Sendable {
    /// False withdraws the action (it is then answered `.withdrawn`).
    func admits() -> Bool
    /// What became of the action.
    func answer(_ outcome: ActionOutcome)
    /// The action's immediate mutations are reduced.
    func applied()
}

/// The closures of the public `send` methods as an `ActionHost`.
final class ClosureActionHost: ActionHost {
    let completion: (@Sendable (ActionOutcome) -> Void)?
    let admit: (@Sendable () -> Bool)?
    let whenApplied: (@Sendable () -> Void)?

    init(
        completion: (@Sendable (ActionOutcome) -> Void)?, admit: (@Sendable () -> Bool)? = nil,
        applied: (@Sendable () -> Void)? = nil
    ) {
        self.completion = completion
        self.admit = admit
        self.whenApplied = applied
    }

    func admits() -> Bool { admit?() ?? true }
    func answer(_ outcome: ActionOutcome) { completion?(outcome) }
    func applied() { whenApplied?() }
}
