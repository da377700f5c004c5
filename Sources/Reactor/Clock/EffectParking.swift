/// How a test clock learns whether the work it woke has come to rest.
///
/// A runtime counts its effect tasks that are running, as opposed to parked: waiting for a sent
/// mutation to be reduced, or sleeping on a `TestClock`. It has settled when its inbox is empty,
/// nothing is being processed and no effect task is running. `TestClock.advance` waits for
/// that after every timer it fires, so that a loop that sleeps, sends and sleeps again has
/// registered its next sleep before the clock moves on: time in tests is deterministic.
protocol EffectParking: AnyObject, Sendable {
    /// One effect task stopped running: it waits on something the runtime or the clock controls.
    func park()

    /// One parked effect task is about to run again; called before it is resumed.
    func unpark()

    /// Whether the runtime has settled now.
    var isSettled: Bool { get }

    /// Waits until the runtime has settled, or `timeout` has passed; returns whether it settled.
    func settle(timeout: Duration) async -> Bool
}

/// The parking of the runtime whose effect task is running, so that a `TestClock` sleep made
/// anywhere inside a `run` effect (directly or through a dependency) parks that task.
enum EffectContext {
    @TaskLocal static var parking: (any EffectParking)?
}
