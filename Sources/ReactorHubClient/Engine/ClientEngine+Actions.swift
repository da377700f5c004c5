import ReactorHubJSON

/// Actions: sent with an `id`, answered by `ref`, resent once after a reconnect, queued while
/// the reactor is not joined on the connection (the offline queue).
extension ClientEngine {
    /// Sends `payload` to `address` and waits for the server's answer; `prediction` is its
    /// effect on the shown state until the confirmed state includes it. An action dispatched
    /// while disconnected, or before the reactor's join is answered on this connection, is
    /// queued (at most `maxQueuedActions` of them: past that it fails with `queue_full`) and
    /// goes out once the reactor is joined again.
    func dispatch(_ address: String, payload: JSONValue, prediction: ReactorEntry.Prediction?) async -> Result<ActionAck, HubClientError> {
        guard !isClosed else { return .failure(HubClientError(.closed, "the client is closed", reactor: address)) }
        guard let entry = entries[address] else {
            return .failure(HubClientError(.left, "\(address) is not joined by this client", reactor: address))
        }
        let sendsNow = isOpen && entry.joinedOn == connectionNumber
        if !sendsNow, ledger.waitingCount >= options.maxQueuedActions {
            return .failure(HubClientError(
                .queueFull,
                "\(ledger.waitingCount) actions wait for the connection already (maxQueuedActions); this one was not queued",
                reactor: address
            ))
        }
        let id = options.makeActionID()
        ledger.add(id: id, address: address, payload: payload)
        entry.predictions[id] = prediction
        settle(entry, cause: .prediction)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<ActionAck, HubClientError>, Never>) in
                actionWaiters[id] = waiter
                if isOpen, entry.joinedOn == connectionNumber, entries[address] === entry {
                    sendAction(id, address: address, payload: payload)
                }
            }
        } onCancel: {
            Task { await self.cancelAction(id) }
        }
    }

    /// Sets (nil: clears) this client's presence in `address`; sent at once when joined,
    /// else when the join is answered, and again after each reconnect.
    func setPresence(_ address: String, state: JSONValue?) -> Result<Void, HubClientError> {
        guard let entry = entries[address] else {
            return .failure(HubClientError(.left, "\(address) is not joined by this client", reactor: address))
        }
        entry.ownPresence = state
        if isOpen, entry.joinedOn == connectionNumber {
            send(ClientFrames.presence(address, state: state, ref: makeRef()))
        }
        return .success(())
    }

    private func sendAction(_ id: String, address: String, payload: JSONValue) {
        let ref = makeRef()
        ledger.markSent(id: id, ref: ref, connection: connectionNumber)
        send(ClientFrames.action(address, payload: payload, ref: ref, id: id))
    }

    /// Sends what waits for `entry`, oldest first: actions dispatched while disconnected
    /// and those whose answer the last connection lost (same `id`).
    func flushActions(of entry: ReactorEntry) {
        for action in ledger.unsent(for: entry.address) {
            if action.sends > 0 {
                logger.debug("resending an unanswered action", metadata: ["reactor": entry.address, "id": action.id])
            }
            sendAction(action.id, address: action.address, payload: action.payload)
        }
    }

    /// The caller stopped waiting (before the answer came); an answer that comes later is
    /// ignored and the action is no longer predicted.
    private func cancelAction(_ id: String) {
        guard actionWaiters[id] != nil, let action = ledger.remove(id: id) else { return }
        rollBack(action)
        let message = action.sends > 0
            ? "the wait for the answer to action \(id) was cancelled; it may still be applied"
            : "action \(id) was cancelled before it was sent"
        actionWaiters.removeValue(forKey: id)?.resume(returning: .failure(HubClientError(.cancelled, message, reactor: action.address)))
    }
}
