/// One unit of work for a runtime's serial context.
enum RuntimeItem<R: Reactor>: Sendable {
    /// An action with who sent it and what its sender wants to hear.
    case action(R.Action, ActionRequest)
    /// A connection joined or left (`Reactor.action(for:)`, `Reactor.mutation(for:)`).
    case membership(Membership)
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
        case .action(_, let request):
            request.completion?(.failed("the reactor runtime was released"))
        case .mutation(_, _, let resume):
            resume.resume()
        case .timerFired, .taskFinished, .external, .stubState, .cancelAll, .membership:
            break
        }
    }
}
