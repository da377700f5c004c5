import ReactorHubJSON

/// The server's messages (PROTOCOL.md, "Server to client"), one at a time.
extension ClientEngine {
    func received(_ bytes: [UInt8], on number: Int) {
        guard number == connectionNumber else { return }
        let message: JSONValue
        do {
            message = try JSONParser().parse(bytes)
        } catch {
            logger.warning("the server sent a frame that is not JSON; ignored", metadata: ["error": error.message])
            return
        }
        guard case .object(let object) = message, let type = object["type"]?.stringValue else {
            logger.warning("the server sent a message without a type; ignored")
            return
        }
        let ref = object["ref"]?.intValue
        switch type {
        case "hello": onHello(message)
        case "snapshot": onSnapshot(object, ref: ref)
        case "resumed": onResumed(object, ref: ref)
        case "patch": onPatch(object)
        case "pulse": onPulse(object)
        case "ack": onAck(object, ref: ref)
        case "error": onError(object, ref: ref)
        case "left": onLeft(object, ref: ref)
        case "pong": onPong(ref: ref)
        case "authed": onAuthed(object, ref: ref)
        case "presence": onPresence(object)
        default: break  // a newer server may send more
        }
    }

    private func onHello(_ message: JSONValue) {
        guard let info = HubServerInfo(hello: message) else {
            logger.warning("the server's hello has no session; ignored")
            return
        }
        helloTimer?.cancel()
        hello = info
        isOpen = true
        attempt = 0
        everOpened = true
        board.set(server: info)
        board.set(.open(session: info.session))
        if info.authRequired && info.user == nil, let token {
            sendAuth(token)
        }
        scheduleTokenRefresh()
        for entry in entries.values.sorted(by: { $0.address < $1.address }) {
            sendJoin(entry, resume: true)
        }
        finishFirst(.success(()))
    }

    /// Removes the request `ref`; true when it was the join in flight for `entry` (or no
    /// request at all: an unsolicited message), false when it answers a superseded join.
    private func takeJoinReply(_ ref: Int?, for entry: ReactorEntry) -> (counts: Bool, answersJoin: Bool) {
        guard let ref, case .join? = requests[ref] else { return (true, false) }
        requests.removeValue(forKey: ref)
        guard entry.joinRef == ref else { return (false, false) }
        entry.joinRef = nil
        return (true, true)
    }

    private func onSnapshot(_ object: JSONObject, ref: Int?) {
        guard let address = object["reactor"]?.stringValue, let entry = entries[address] else { return }
        let reply = takeJoinReply(ref, for: entry)
        guard reply.counts else { return }
        guard let state = object["state"], let epoch = object["epoch"]?.stringValue, let version = object["version"]?.intValue else {
            logger.warning("a snapshot without state, epoch or version; ignored", metadata: ["reactor": address])
            return
        }
        entry.replica.applySnapshot(state: state, epoch: epoch, version: version)
        entry.resyncing = false
        entry.diverged = false
        check(entry, object, rejoin: false)
        entry.presence.publish(PresenceView(snapshot: object))
        // Pending actions are replayed on the new state, in another epoch too; those acknowledged
        // in a history that is gone are not pending any more.
        settle(entry, cause: .snapshot)
        if reply.answersJoin {
            joined(entry)
        }
    }

    private func onResumed(_ object: JSONObject, ref: Int?) {
        guard let address = object["reactor"]?.stringValue, let entry = entries[address] else { return }
        let reply = takeJoinReply(ref, for: entry)
        guard reply.counts else { return }
        entry.resyncing = false
        let epoch = object["epoch"]?.stringValue ?? ""
        let version = object["version"]?.intValue ?? -1
        switch entry.replica.resume(epoch: epoch, version: version) {
        case .accept:
            if version == entry.replica.version { check(entry, object) }
            entry.presence.publish(PresenceView(snapshot: object))
            if reply.answersJoin {
                joined(entry)
            }
        case .rejoinWithoutSince:
            logger.debug("resumed into another history; joining afresh", metadata: ["reactor": address, "epoch": epoch])
            sendJoin(entry, resume: false)
        }
    }

    private func onPresence(_ object: JSONObject) {
        guard let address = object["reactor"]?.stringValue, let entry = entries[address] else { return }
        var view = entry.presence.view
        view.apply(object)
        entry.presence.publish(view)
    }

    /// The server answered our join on this connection: the reactor is live here.
    private func joined(_ entry: ReactorEntry) {
        if let own = entry.ownPresence {
            send(ClientFrames.presence(entry.address, state: own, ref: makeRef()))
        }
        entry.joinedOn = connectionNumber
        entry.resolveWaiters(.success(()))
        flushActions(of: entry)
    }

    private func onPatch(_ object: JSONObject) {
        guard let address = object["reactor"]?.stringValue, let entry = entries[address],
              let version = object["version"]?.intValue, let patch = object["patch"]
        else { return }
        switch entry.replica.applyPatch(version: version, base: object["base"]?.intValue, patch: patch) {
        case .applied:
            check(entry, object)
            settle(entry, cause: .patch)
        case .stale, .notReady:
            break
        case .gap:
            resync(entry, resume: true)
        case .broken(let reason):
            logger.warning("a patch does not apply; joining afresh", metadata: ["reactor": address, "version": String(version), "error": reason])
            resync(entry, resume: false)
        }
    }

    /// The `sum` of a snapshot, `resumed` or patch against the copy now held (with
    /// `HubClientOptions.checksums`): a copy that does not match is reported, once until a
    /// snapshot replaces it, and the reactor joined afresh (not resumed: the copy is wrong),
    /// unless `rejoin` is false: a snapshot is the server's state itself, and one that does
    /// not match cannot be mended by another (no join loop).
    private func check(_ entry: ReactorEntry, _ object: JSONObject, rejoin: Bool = true) {
        guard options.checksums, !entry.diverged, let expected = object["sum"]?.stringValue, let state = entry.replica.state else { return }
        let computed = checksum.sum(of: state)
        guard computed != expected else { return }
        entry.diverged = true
        let mismatch = ChecksumMismatch(reactor: entry.address, version: entry.replica.version, expected: expected, computed: computed)
        logger.warning(
            "the state held does not match the server's checksum; joining afresh",
            metadata: ["reactor": entry.address, "version": String(mismatch.version), "expected": expected, "computed": computed]
        )
        mismatches.report(mismatch)
        guard rejoin else { return }
        entry.resyncing = false
        resync(entry, resume: false)
    }

    private func onPulse(_ object: JSONObject) {
        guard let address = object["reactor"]?.stringValue, let entry = entries[address], entry.replica.hasState,
              let name = object["name"]?.stringValue
        else { return }
        let value = object["value"] ?? .null
        let count = (entry.pulses[name]?.count ?? 0) &+ 1
        entry.pulses[name] = FiredPulse(count: count, value: value)
        entry.publishPulse()
        entry.publisher.publishPulse(name: name, value: value)
    }

    /// An ack: the action stays pending (and predicted) until the confirmed state reaches its
    /// `applied` version, which it may have already (an action that changed nothing at once).
    private func onAck(_ object: JSONObject, ref: Int?) {
        let ack = ActionAck(
            version: object["version"]?.intValue ?? 0, applied: object["applied"]?.intValue, duplicate: object["duplicate"]?.boolValue ?? false
        )
        guard let ref, let address = ledger.sent(ref: ref)?.address else { return }
        let epoch = entries[address]?.replica.epoch ?? ""
        guard let action = ledger.acknowledge(ref: ref, applied: ack.applied, epoch: epoch) else { return }
        if let entry = entries[address], ack.applied <= entry.replica.version {
            settle(entry, cause: .prediction)
        }
        actionWaiters.removeValue(forKey: action.id)?.resume(returning: .success(ack))
    }

    private func onError(_ object: JSONObject, ref: Int?) {
        let code = HubClientError.Code(rawValue: object["code"]?.stringValue ?? "internal")
        let message = object["message"]?.stringValue ?? "the server refused the message"
        guard let ref else {
            logger.warning("the server reported an error", metadata: ["code": code.rawValue, "message": message])
            return
        }
        if let action = ledger.answer(ref: ref) {
            // The rollback is published before the sender hears of the refusal.
            rollBack(action)
            actionWaiters.removeValue(forKey: action.id)?.resume(returning: .failure(HubClientError(code, message, reactor: action.address)))
            return
        }
        switch requests.removeValue(forKey: ref) {
        case .join(let address)?:
            joinRefused(address, ref: ref, error: HubClientError(code, message, reactor: address))
        case .leave(let waiter)?:
            waiter.resume()
        case .ping(_, let waiter)?:
            waiter.resume(returning: .failure(HubClientError(code, message)))
        case .auth?:
            logger.warning("the server refused the refreshed token", metadata: ["code": code.rawValue, "message": message])
            scheduleTokenRetry()
        case nil:
            logger.debug("an error answers no request of ours", metadata: ["code": code.rawValue, "ref": String(ref)])
        }
    }

    /// A join was refused. A first join fails its callers; a re-join (after a reconnect
    /// or a gap) that the server refuses for good ends the reactor; one refused for now
    /// (rate limits, shutdown) is tried again with the next connection.
    private func joinRefused(_ address: String, ref: Int, error: HubClientError) {
        guard let entry = entries[address], entry.joinRef == ref else { return }
        entry.joinRef = nil
        entry.resyncing = false
        let final: Set<HubClientError.Code> = [.forbidden, .unknownReactor, .invalidReactor, .unauthenticated]
        if !entry.replica.hasState || final.contains(error.code) {
            end(entry, error)
        } else {
            logger.warning("the server refused a re-join; trying again after the next reconnect", metadata: ["reactor": address, "code": error.code.rawValue])
        }
    }

    private func onLeft(_ object: JSONObject, ref: Int?) {
        if let ref, case .leave(let waiter)? = requests[ref] {
            requests.removeValue(forKey: ref)
            waiter.resume()
            return
        }
        guard let address = object["reactor"]?.stringValue, let entry = entries[address] else { return }
        let reason = object["reason"]?.stringValue ?? "no reason given"
        let code: HubClientError.Code = reason == "forbidden" ? .forbidden : .left
        end(entry, HubClientError(code, "the server left \(address) (\(reason))", reactor: address))
    }

    private func onPong(ref: Int?) {
        guard let ref, case .ping(let sentAt, let waiter)? = requests[ref] else { return }
        requests.removeValue(forKey: ref)
        waiter.resume(returning: .success(ContinuousClock.now - sentAt))
    }

    private func onAuthed(_ object: JSONObject, ref: Int?) {
        if let ref { requests.removeValue(forKey: ref) }
        logger.debug("token refreshed", metadata: ["user": object["user"]?.stringValue ?? ""])
        scheduleTokenRefresh()
    }
}
