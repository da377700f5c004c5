/// The mutations an action causes: the port of the `Observable<Mutation>` that ReactorKit's
/// `mutate(action:)` returns, built on Swift concurrency instead of RxSwift.
///
/// An effect is a description; the runtime runs it. Synchronous parts (`just`, `concat` of them,
/// `deferred`) are reduced before the runtime takes the next action; asynchronous parts (`delay`,
/// `run`) continue while later actions are processed, and mutations of different actions
/// interleave, as with ReactorKit's `flatMap`.
///
/// ```swift
/// return .concat([
///     .just(.setLoading(true)),
///     Effect.just(.increaseValue).delay(.milliseconds(500)),
///     .just(.setLoading(false)),
/// ])
/// ```
public struct Effect<Mutation: Sendable>: Sendable {
    @usableFromInline
    enum Operation: Sendable {
        case none
        case one(Mutation)
        case many([Mutation])
        case concat([Effect])
        case merge([Effect])
        case deferred(@Sendable () -> Effect)
        indirect case delayed(Effect, Duration)
        case run(@Sendable (Send<Mutation>) async throws -> Void)
        indirect case cancellable(Effect, id: EffectID, cancelInFlight: Bool)
        case cancel(EffectID)
    }

    @usableFromInline
    let operation: Operation

    @inlinable
    init(_ operation: Operation) {
        self.operation = operation
    }

    /// Whether this effect is `none`, which the runtime need not run at all.
    var isNone: Bool {
        if case .none = operation { true } else { false }
    }
}

extension Effect {
    /// An effect that produces no mutation.
    @inlinable
    public static var none: Effect {
        Effect(.none)
    }

    /// An effect that produces no mutation; the same as `none`, spelled as in RxSwift.
    @inlinable
    public static func empty() -> Effect {
        Effect(.none)
    }

    /// An effect that produces one mutation at once.
    @inlinable
    public static func just(_ mutation: Mutation) -> Effect {
        Effect(.one(mutation))
    }

    /// An effect that produces `mutations` at once, in order.
    @inlinable
    public static func just(_ mutations: [Mutation]) -> Effect {
        switch mutations.count {
        case 0: Effect(.none)
        case 1: Effect(.one(mutations[0]))
        default: Effect(.many(mutations))
        }
    }

    /// An effect that produces the given mutations at once, in order.
    @inlinable
    public static func just(_ first: Mutation, _ second: Mutation, _ more: Mutation...) -> Effect {
        Effect(.many([first, second] + more))
    }

    /// Runs `effects` one after another: each starts once the previous one's mutations are reduced.
    @inlinable
    public static func concat(_ effects: [Effect]) -> Effect {
        switch effects.count {
        case 0: Effect(.none)
        case 1: effects[0]
        default: Effect(.concat(effects))
        }
    }

    /// Runs `effects` one after another: each starts once the previous one's mutations are reduced.
    @inlinable
    public static func concat(_ effects: Effect...) -> Effect {
        concat(effects)
    }

    /// Runs `effects` at the same time; their mutations interleave.
    @inlinable
    public static func merge(_ effects: [Effect]) -> Effect {
        switch effects.count {
        case 0: Effect(.none)
        case 1: effects[0]
        default: Effect(.merge(effects))
        }
    }

    /// Runs `effects` at the same time; their mutations interleave.
    @inlinable
    public static func merge(_ effects: Effect...) -> Effect {
        merge(effects)
    }

    /// An effect built only when it is reached, so that it can read `currentState` as it is then.
    ///
    /// Inside `concat`, each deferred part sees the mutations of the parts before it applied.
    @inlinable
    public static func deferred(_ build: @escaping @Sendable () -> Effect) -> Effect {
        Effect(.deferred(build))
    }

    /// Asynchronous work that sends mutations as it goes.
    ///
    /// `operation` runs in its own task; `await send(mutation)` returns once the mutation has been
    /// reduced. Time comes from `send.clock`. An error thrown by `operation` ends this effect
    /// alone and is logged with the reactor and the action; cancellation is not an error.
    @inlinable
    public static func run(_ operation: @escaping @Sendable (Send<Mutation>) async throws -> Void) -> Effect {
        Effect(.run(operation))
    }

    /// This effect, started after `duration` on the runtime's clock.
    @inlinable
    public func delay(_ duration: Duration) -> Effect {
        Effect(.delayed(self, duration))
    }

    /// This effect, cancelled by `Effect.cancel(id:)` with the same `id`: the port of
    /// ReactorKit's `take(until:)`.
    ///
    /// A cancelled effect produces nothing more and completes at once, so a `concat` around it
    /// goes on. With `cancelInFlight`, effects already running under `id` are cancelled first.
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        Effect(.cancellable(self, id: EffectID(id), cancelInFlight: cancelInFlight))
    }

    /// Cancels every running effect marked `cancellable(id:)` with this `id`.
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(.cancel(EffectID(id)))
    }
}
