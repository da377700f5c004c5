import ReactorHubLocking
/// Which runtime runs which reactor, so that `reactor.currentState` can be answered.
///
/// ReactorKit keeps a reactor's current state in an associated object; Swift has none, so a
/// runtime registers its published state here, weakly, and removes it when it goes away.
enum RuntimeRegistry {
    private struct Entry {
        weak var published: (any AnyObject & Sendable)?
    }

    private static let entries = Locked<[ObjectIdentifier: Entry]>([:])

    /// Records that `published` holds the state of `reactor`; a reactor has one runtime at most.
    static func register(_ published: some AnyObject & Sendable, for reactor: some Reactor) {
        let key = ObjectIdentifier(reactor)
        let taken = entries.withLock { entries in
            if entries[key]?.published != nil { return true }
            entries[key] = Entry(published: published)
            return false
        }
        precondition(!taken, "\(type(of: reactor)) is already run by another ReactorRuntime; a reactor has one runtime")
    }

    /// Forgets `reactor`, unless another runtime has registered it since.
    static func unregister(_ published: some AnyObject & Sendable, for reactor: some Reactor) {
        let key = ObjectIdentifier(reactor)
        entries.withLock { entries in
            if let current = entries[key]?.published, current !== published { return }
            entries[key] = nil
        }
    }

    static func published(for reactor: some Reactor) -> (any AnyObject & Sendable)? {
        let key = ObjectIdentifier(reactor)
        return entries.withLock { $0[key]?.published }
    }
}

extension Reactor {
    /// The state as observers last saw it: updated right after each reduce, readable from any
    /// thread, including inside `mutate(action:)` and effects. `initialState` when no runtime
    /// runs this reactor.
    public var currentState: State {
        guard let published = RuntimeRegistry.published(for: self) as? PublishedState<State> else {
            return initialState
        }
        return published.state
    }
}
