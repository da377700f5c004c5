extension ReactorRuntime {
    /// Whether the runtime is stubbed, for testing whoever sends to it and observes it.
    ///
    /// With the stub enabled, sent actions are only recorded in `stub.actions`: no transform,
    /// mutate or reduce runs. Setting `stub.state` sets `currentState` at once.
    public var isStubEnabled: Bool {
        get { stubEnabled.load(ordering: .acquiring) }
        set { stubEnabled.store(newValue, ordering: .releasing) }
    }

    /// The stub of this runtime: recorded actions and a settable state.
    public var stub: Stub<R> {
        Stub(runtime: self)
    }

    func setStubState(_ state: R.State) {
        published.set(state)
        enqueue(.stubState(state))
    }
}

/// ReactorKit's stub, for testing what sends to a runtime and what observes it.
public struct Stub<R: Reactor>: Sendable {
    let runtime: ReactorRuntime<R>

    /// The actions sent while the stub was enabled, in order.
    public var actions: [R.Action] {
        runtime.stubActions.withLock { $0 }
    }

    /// The runtime's current state; setting it updates `currentState` at once and tells
    /// observers, in the serial context, with `.state`.
    public var state: R.State {
        get { runtime.currentState }
        nonmutating set { runtime.setStubState(newValue) }
    }
}
