/// What a runtime tells its observers, in its serial context.
public enum RuntimeEvent<State: Sendable>: Sendable {
    /// A reduce (or a stub) produced this state; sent after every reduce, equal or not.
    case state(State)
    /// Everything queued so far has been processed and the runtime is about to go idle: the end
    /// of a burst, for observers that coalesce changes. Under sustained load it also comes every
    /// 512 items, so such observers never wait for ever.
    case drained
}
