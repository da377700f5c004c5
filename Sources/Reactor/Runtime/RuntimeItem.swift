/// One unit of work for a runtime's serial context.
enum RuntimeItem<R: Reactor>: Sendable {
    /// `applied`: called once the action's immediate mutations are reduced (accepted ones only).
    case action(
        R.Action, completion: (@Sendable (ActionOutcome) -> Void)?, admit: (@Sendable () -> Bool)?, applied: (@Sendable () -> Void)?
    )
    /// A mutation sent by an effect task, resumed once reduced.
    case mutation(R.Mutation, operation: Int, resume: UnsafeContinuation<Void, Never>)
    case timerFired(operation: Int)
    case taskFinished(operation: Int, error: (any Error)?)
    case external(Effect<R.Mutation>)
    case stubState(R.State)
    case cancelAll

    /// Releases whoever waits on an item that will never be processed.
    func abandon() {
        switch self {
        case .action(_, let completion, _, _):
            completion?(.failed("the reactor runtime was released"))
        case .mutation(_, _, let resume):
            resume.resume()
        case .timerFired, .taskFinished, .external, .stubState, .cancelAll:
            break
        }
    }
}
