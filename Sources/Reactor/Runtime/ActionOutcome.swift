/// What became of an action, reported by `ReactorRuntime.send(_:completion:)` right after
/// `mutate(action:)` returned or threw.
public enum ActionOutcome: Sendable, Equatable {
    /// `mutate` returned an effect; its mutations follow.
    case accepted
    /// `mutate` threw an `ActionRefusal`: the action was invalid and changed nothing.
    case refused(ActionRefusal)
    /// `mutate` threw another error, described here; it was logged and changed nothing.
    case failed(String)
    /// The sender's `admit` said no when the action's turn came: it was not processed and
    /// changed nothing (its sender is gone, or the host is shutting down).
    case withdrawn
}
