/// The serial context: the drain that takes items out of the inbox and processes them one at a
/// time. Everything here runs in one drain at a time (see `EffectMachine`).
///
/// The per-item functions are `@inline(__always)`: inlined into `drain`, the unspecialized
/// generic code looks its type metadata up once per drain instead of once per item, which more
/// than halves the cost of a trivial action.
extension ReactorRuntime {
    /// Processes items until the inbox is empty, tells observers `.drained`, and goes idle.
    /// A turn ends after `drainBudget` items or `drainTimeSlice`, whichever comes first: it
    /// tells `.drained` too (so that observers coalescing a burst still flush under
    /// sustained load) and continues on a fresh Dispatch turn, leaving the thread to other
    /// runtimes and tasks (a backlog of slow actions must not hold a thread of the shared
    /// pool for minutes: signals and shutdown run there too).
    func drain() {
        var batch: [RuntimeItem<R>] = []
        var budget = Self.drainBudget
        let deadline = ContinuousClock.now + Self.drainTimeSlice
        while true {
            if inbox.take(into: &batch, atMost: max(budget, 1)) {
                var processed = 0
                var outOfTime = false
                for item in batch {
                    process(item)
                    processed += 1
                    if ContinuousClock.now >= deadline {
                        outOfTime = true
                        break
                    }
                }
                inbox.putBack(batch[processed...])
                budget -= processed
                batch.removeAll(keepingCapacity: true)
                if (budget <= 0 || outOfTime) && inbox.hasQueuedItems {
                    notify(.drained)
                    scheduleDrainAfterOthers() // the inbox stays marked as draining
                    return
                }
                continue
            }
            notify(.drained)
            if inbox.finishDrain() {
                return
            }
        }
    }

    @inline(__always)
    private func process(_ item: RuntimeItem<R>) {
        switch item {
        case .action(let action, let request):
            if let admit = request.admit, !admit() {
                request.completion?(.withdrawn)
                return
            }
            TrapContext.enter(trapLabel, request.label)
            handle(action, request)
            TrapContext.leave(trapLabel)
        case .membership(let membership):
            TrapContext.enter(trapLabel, nil)
            if let action = reactor.action(for: membership) {
                handle(action, ActionRequest(sender: membership.member))
            } else if let mutation = reactor.mutation(for: membership) {
                apply(mutation)
            }
            TrapContext.leave(trapLabel)
        case .mutation(let mutation, let id, let resume):
            if let operation = machine.operations[id], !operation.isCompleted, !operation.scope.isCancelled {
                TrapContext.enter(trapLabel, operation.scope.label)
                apply(mutation)
                TrapContext.leave(trapLabel)
            }
            inbox.unpark()
            resume.resume()
        case .timerFired(let id):
            TrapContext.enter(trapLabel, machine.operations[id]?.scope.label)
            timerFired(id)
            TrapContext.leave(trapLabel)
        case .taskFinished(let id, let error):
            TrapContext.enter(trapLabel, machine.operations[id]?.scope.label)
            taskFinished(id, error: error)
            TrapContext.leave(trapLabel)
        case .external(let effect):
            TrapContext.enter(trapLabel, nil)
            start(effect, for: nil)
            TrapContext.leave(trapLabel)
        case .stubState(let state):
            notify(.state(state))
        case .cancelAll:
            cancelAll()
        }
    }

    @inline(__always)
    private func handle(_ action: R.Action, _ request: ActionRequest) {
        guard !stubEnabled.load(ordering: .acquiring) else {
            request.completion?(.accepted)
            request.applied?()
            return
        }
        let action = reactor.transform(action: action)
        let effect: Effect<R.Mutation>
        do {
            effect = try reactor.mutate(action: action, from: request.sender)
        } catch let refusal as ActionRefusal {
            logger.debug("action refused", metadata: ["action": "\(action)", "reason": refusal.message])
            request.completion?(.refused(refusal))
            return
        } catch {
            logger.info("mutate failed", metadata: ["action": "\(action)", "error": "\(error)"])
            request.completion?(.failed("\(error)"))
            return
        }
        request.completion?(.accepted)
        start(effect, for: action, label: request.label)
        request.applied?()
    }

    /// Transforms and reduces one mutation, then publishes the transformed state.
    @inline(__always)
    func apply(_ mutation: R.Mutation) {
        guard !stubEnabled.load(ordering: .relaxed) else { return }
        let mutation = reactor.transform(mutation: mutation)
        machine.reducedState = reactor.reduce(state: machine.reducedState, mutation: mutation)
        let state = reactor.transform(state: machine.reducedState)
        for observer in published.publish(state) {
            observer.deliver(.state(state))
        }
    }

    func notify(_ event: RuntimeEvent<R.State>) {
        for observer in published.allObservers {
            observer.deliver(event)
        }
    }
}
