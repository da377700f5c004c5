/// What a `run` effect uses to send mutations to its runtime.
///
/// `await send(mutation)` queues the mutation behind the runtime's current work and returns once
/// it has been reduced, so `currentState` read afterwards includes it. After the effect is
/// cancelled, or once its runtime is gone, sending does nothing.
public struct Send<Mutation: Sendable>: Sendable {
    /// The runtime's clock: sleep on it so that tests can drive time.
    public let clock: any ReactorClock

    private let deliver: @Sendable (Mutation, UnsafeContinuation<Void, Never>) -> Bool

    init(clock: any ReactorClock, deliver: @escaping @Sendable (Mutation, UnsafeContinuation<Void, Never>) -> Bool) {
        self.clock = clock
        self.deliver = deliver
    }

    /// Sends `mutation` and returns once it has been reduced (or dropped, after cancellation).
    public func callAsFunction(_ mutation: Mutation) async {
        guard !Task.isCancelled else { return }
        await withUnsafeContinuation { continuation in
            if !deliver(mutation, continuation) {
                continuation.resume()
            }
        }
    }
}
