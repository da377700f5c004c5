import ReactorHubJSON

/// Joining and leaving reactors, and re-joining them when their copy went wrong.
extension ClientEngine {
    /// What a join hands to a reactor handle.
    struct Joined: Sendable {
        let publisher: ReplicaPublisher
        /// The kind's pulse names as the server listed them in `hello`.
        let pulseNames: [String]
    }

    /// Joins `address` (or adds a handle to it when it is joined already); returns once
    /// the reactor has a state. A join made while disconnected is sent once connected.
    func join(_ address: String) async -> Result<Joined, HubClientError> {
        guard !isClosed else { return .failure(HubClientError(.closed, "the client is closed", reactor: address)) }
        guard ReactorEntry.isValidAddress(address) else {
            return .failure(HubClientError(.invalidReactor, "'\(address)' is not a reactor address KIND/ID (KIND [a-z][a-z0-9-]{0,31}, ID [A-Za-z0-9._-]{1,64})", reactor: address))
        }
        let entry: ReactorEntry
        if let existing = entries[address] {
            entry = existing
        } else {
            entry = ReactorEntry(address: address)
            entries[address] = entry
            if isOpen {
                sendJoin(entry, resume: false)
            }
        }
        entry.subscribers += 1
        if !entry.replica.hasState {
            let ready = await withCheckedContinuation { entry.readyWaiters.append($0) }
            if case .failure(let error) = ready {
                return .failure(error)
            }
        }
        return .success(Joined(publisher: entry.publisher, pulseNames: hello?.pulseNames(of: entry.kind) ?? []))
    }

    /// One handle of `address` leaves; the last one leaves the reactor on the server and
    /// returns once the server said `left` (or at once when disconnected).
    func leave(_ address: String) async {
        guard let entry = entries[address] else { return }
        entry.subscribers -= 1
        guard entry.subscribers <= 0 else { return }
        end(entry, HubClientError(.left, "\(address) was left", reactor: address))
        guard isOpen else { return }
        let ref = makeRef()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            requests[ref] = .leave(waiter)
            send(ClientFrames.leave(address, ref: ref))
        }
    }

    /// The reactor is gone from this client: its streams end, its waiters and its actions fail.
    func end(_ entry: ReactorEntry, _ error: HubClientError) {
        guard entries[entry.address] === entry else { return }
        entries[entry.address] = nil
        entry.resolveWaiters(.failure(error))
        entry.publisher.finish(error)
        for action in ledger.remove(address: entry.address) {
            actionWaiters.removeValue(forKey: action.id)?.resume(returning: .failure(error))
        }
    }

    /// Sends a join; with `resume`, asks for the patches missed since the version held.
    func sendJoin(_ entry: ReactorEntry, resume: Bool) {
        let ref = makeRef()
        requests[ref] = .join(address: entry.address)
        entry.joinRef = ref
        send(ClientFrames.join(entry.address, ref: ref, since: resume ? entry.replica.resumePoint : nil, checksums: options.checksums))
    }

    /// The copy missed something (`resume`: join with `since`) or went wrong (join afresh);
    /// one re-join at a time, the patches that do not fit are ignored meanwhile.
    func resync(_ entry: ReactorEntry, resume: Bool) {
        guard !entry.resyncing else { return }
        entry.resyncing = true
        if isOpen {
            sendJoin(entry, resume: resume)
        }
    }

    /// Round trip to the server.
    func ping() async -> Result<Duration, HubClientError> {
        guard isOpen else { return .failure(HubClientError(isClosed ? .closed : .disconnected, "not connected")) }
        let ref = makeRef()
        return await withCheckedContinuation { waiter in
            requests[ref] = .ping(sentAt: .now, waiter)
            send(ClientFrames.ping(ref: ref))
        }
    }

    /// Handles of `address` (tests).
    func subscriberCount(_ address: String) -> Int {
        entries[address]?.subscribers ?? 0
    }
}
