import ReactorHubLogging

/// The interpreter of `Effect`: runs synchronous parts at once and keeps asynchronous parts
/// (timers and tasks) as operations that come back through the inbox. Serial context only.
extension ReactorRuntime {
    /// Starts the effect of `action` (nil for `externalMutations`).
    @inline(__always)
    func start(_ effect: Effect<R.Mutation>, for action: R.Action?, label: TrapLabel? = nil) {
        switch effect.operation {
        case .none:
            return
        case .one(let mutation):
            apply(mutation)
        case .many(let mutations):
            mutations.forEach(apply)
        default:
            let scope = EffectScope<R>(id: machine.nextID(), parent: nil, effectID: nil, action: action, label: label)
            machine.scopes[scope.id] = scope
            if execute(effect, parent: RootFrame(scope: scope), scope: scope) {
                close(scope)
            }
        }
    }

    /// Runs `effect` as far as it goes at once. Returns true if it completed; otherwise `parent`
    /// is told later, never during this call.
    func execute(_ effect: Effect<R.Mutation>, parent: EffectFrame<R>, scope: EffectScope<R>) -> Bool {
        guard !scope.isCancelled else { return true }
        switch effect.operation {
        case .none:
            return true
        case .one(let mutation):
            apply(mutation)
            return true
        case .many(let mutations):
            mutations.forEach(apply)
            return true
        case .concat(let parts):
            return ConcatFrame(parts: parts, parent: parent, scope: scope).advance(in: self)
        case .merge(let parts):
            return MergeFrame(parent: parent, count: parts.count).start(parts, scope: scope, in: self)
        case .deferred(let build):
            return execute(build(), parent: parent, scope: scope)
        case .delayed(let effect, let duration):
            startTimer(then: effect, after: duration, parent: parent, scope: scope)
            return false
        case .run(let body):
            startTask(body, parent: parent, scope: scope)
            return false
        case .cancellable(let effect, let id, let cancelInFlight):
            if cancelInFlight {
                cancelEffects(withID: id)
            }
            let child = EffectScope<R>(id: machine.nextID(), parent: scope, effectID: id, action: scope.action, label: scope.label)
            machine.scopes[child.id] = child
            scope.childIDs.insert(child.id)
            machine.scopesByEffectID[id, default: []].insert(child.id)
            if execute(effect, parent: ScopeFrame(scope: child, parent: parent), scope: child) {
                close(child)
                return true
            }
            return false
        case .cancel(let id):
            cancelEffects(withID: id)
            return true
        }
    }

    /// Forgets a scope whose effect has completed.
    func close(_ scope: EffectScope<R>) {
        machine.scopes[scope.id] = nil
        scope.parent?.childIDs.remove(scope.id)
        if let id = scope.effectID {
            machine.scopesByEffectID[id]?.remove(scope.id)
            if machine.scopesByEffectID[id]?.isEmpty == true {
                machine.scopesByEffectID[id] = nil
            }
        }
    }

    private func startTimer(then effect: Effect<R.Mutation>, after duration: Duration, parent: EffectFrame<R>, scope: EffectScope<R>) {
        let id = machine.nextID()
        let operation = EffectOperation(id: id, parent: parent, scope: scope, kind: .timer(then: effect, work: nil))
        register(operation, running: false)
        let work = clock.schedule(after: duration) { [weak self] in
            self?.enqueue(.timerFired(operation: id))
        }
        operation.kind = .timer(then: effect, work: work)
    }

    private func startTask(_ body: @escaping @Sendable (Send<R.Mutation>) async throws -> Void, parent: EffectFrame<R>, scope: EffectScope<R>) {
        let id = machine.nextID()
        let operation = EffectOperation(id: id, parent: parent, scope: scope, kind: .task(nil))
        register(operation, running: true)
        let send = Send<R.Mutation>(clock: clock) { [weak self] mutation, resume in
            self?.enqueue(.mutation(mutation, operation: id, resume: resume), parking: true) ?? false
        }
        let inbox = self.inbox
        let finish: @Sendable ((any Error)?) -> Void = { [weak self] error in
            if self?.enqueue(.taskFinished(operation: id, error: error), parking: true) != true {
                inbox.park()
            }
        }
        operation.kind = .task(Task {
            await EffectContext.$parking.withValue(inbox) {
                do {
                    try await body(send)
                    finish(nil)
                } catch {
                    finish(error)
                }
            }
        })
    }

    private func register(_ operation: EffectOperation<R>, running: Bool) {
        machine.operations[operation.id] = operation
        operation.scope.operationIDs.insert(operation.id)
        inbox.operationStarted(running: running)
    }

    func timerFired(_ id: Int) {
        guard let operation = machine.operations.removeValue(forKey: id), !operation.isCompleted else { return }
        guard case .timer(let effect, _) = operation.kind else { return }
        operation.isCompleted = true
        operation.scope.operationIDs.remove(id)
        inbox.operationFinished()
        if execute(effect, parent: operation.parent, scope: operation.scope) {
            operation.parent.childCompleted(in: self)
        }
    }

    func taskFinished(_ id: Int, error: (any Error)?) {
        guard let operation = machine.operations.removeValue(forKey: id) else { return }
        inbox.operationFinished()
        operation.scope.operationIDs.remove(id)
        if let error {
            logFailure(error, of: operation)
        }
        if !operation.isCompleted {
            operation.isCompleted = true
            operation.parent.childCompleted(in: self)
        }
    }

    private func logFailure(_ error: any Error, of operation: EffectOperation<R>) {
        var metadata: Logger.Metadata = ["error": "\(error)"]
        metadata["action"] = operation.scope.action.map { "\($0)" } ?? "externalMutations"
        if error is CancellationError || operation.isCompleted || operation.scope.isCancelled {
            logger.debug("cancelled effect ended with an error", metadata: metadata)
        } else {
            logger.info("effect failed", metadata: metadata)
        }
    }

    func cancelEffects(withID id: EffectID) {
        guard let scopeIDs = machine.scopesByEffectID[id] else { return }
        for scopeID in scopeIDs.sorted() {
            if let scope = machine.scopes[scopeID] {
                cancel(scope)
            }
        }
    }

    func cancelAll() {
        let roots = machine.scopes.values.filter { $0.parent == nil }.sorted { $0.id < $1.id }
        for root in roots {
            cancel(root)
        }
    }

    /// Cancels everything under `scope`: its operations complete at once, so frames around them
    /// go on, while frames inside the scope see it cancelled and stop.
    private func cancel(_ scope: EffectScope<R>) {
        scope.isCancelledHere = true
        for childID in scope.childIDs.sorted() {
            if let child = machine.scopes[childID] {
                cancel(child)
            }
        }
        for operationID in scope.operationIDs.sorted() {
            if let operation = machine.operations[operationID], !operation.isCompleted {
                cancel(operation)
            }
        }
    }

    private func cancel(_ operation: EffectOperation<R>) {
        operation.isCompleted = true
        operation.scope.operationIDs.remove(operation.id)
        switch operation.kind {
        case .timer(_, let work):
            work?.cancel()
            machine.operations[operation.id] = nil
            inbox.operationFinished()
        case .task(let task):
            // The task stays in flight until it returns; its later sends are dropped.
            task?.cancel()
        }
        operation.parent.childCompleted(in: self)
    }
}
