/// What comes with an action into a runtime's inbox besides the action itself: who sent it,
/// the host's callbacks, and the label a trap report names it by.
struct ActionRequest: Sendable {
    /// Who sent it (`Reactor.mutate(action:from:)`); nil: the server itself.
    var sender: Sender?
    /// Called right after `mutate`, before any mutation is reduced.
    var completion: (@Sendable (ActionOutcome) -> Void)?
    /// Asked when the action's turn comes; false withdraws it.
    var admit: (@Sendable () -> Bool)?
    /// Called once the action's immediate mutations are reduced (accepted ones only).
    var applied: (@Sendable () -> Void)?
    /// The action's name in a trap report (a string that lives as long as the process).
    var label: TrapLabel?
}
