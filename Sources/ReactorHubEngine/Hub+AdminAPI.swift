import ReactorHubProtocol
import Foundation
import ReactorHubJSON

/// The admin API (issue "Operating it"): instances, one instance, its reset, connections.
/// JSON in, JSON out; called off the service thread.
extension Hub {
    /// Routes an authorized admin request.
    func admin(_ request: HTTPRequest) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)  // ["admin", …]
        switch (request.method, parts.count > 1 ? parts[1] : "") {
        case ("POST", "revoke") where parts.count == 2:
            return revoke(request.body)
        case ("GET", "instances") where parts.count == 2:
            return instances(query: request.query)
        case ("GET", "instances") where parts.count == 4:
            return instance(ReactorAddress(parts[2] + "/" + parts[3]))
        case ("POST", "instances") where parts.count == 5 && parts[4] == "reset":
            return reset(ReactorAddress(parts[2] + "/" + parts[3]))
        case ("GET", "connections") where parts.count == 2:
            return connections()
        default:
            return .text(404, "no admin endpoint \(request.method) \(request.path); see docs/operations.md")
        }
    }

    private func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        var writer = JSONWriter()
        writer.writeValue(value)
        return .json(status, writer.bytes)
    }

    /// `GET /admin/instances?limit=N&offset=M`: the instances in memory, by address.
    private func instances(query: [String: String]) -> HTTPResponse {
        let limit = min(max(Int(query["limit"] ?? "") ?? 100, 1), 1000)
        let offset = max(Int(query["offset"] ?? "") ?? 0, 0)
        let slots = state.withLock { $0.slots.values.sorted { $0.address.description < $1.address.description } }
        let page = slots.dropFirst(offset).prefix(limit)
        let items = page.compactMap { slot -> JSONValue? in
            guard let instance = slot.instance else { return nil }
            let inspection = instance.inspect(history: 0)
            return .object([
                "kind": .string(slot.address.kind), "id": .string(slot.address.id), "epoch": .string(inspection.epoch),
                "version": .int(inspection.version), "subscribers": .int(inspection.subscribers.count),
                "queuedBytes": .int(inspection.subscribers.reduce(0) { $0 + $1.queuedBytes }),
            ])
        }
        let next: JSONValue = offset + limit < slots.count ? .int(offset + limit) : .null
        return json(.object([
            "instances": .array(items), "total": .int(slots.count), "offset": .int(offset), "limit": .int(limit), "next": next,
        ]))
    }

    /// `GET /admin/instances/KIND/ID`: its state and recent history (from memory, or from
    /// the store when it is not resident).
    private func instance(_ address: ReactorAddress?) -> HTTPResponse {
        guard let address else { return .text(400, "expected /admin/instances/KIND/ID with a valid reactor address") }
        if let instance = state.withLock({ $0.slots[address]?.instance }) {
            let inspection = instance.inspect(history: 20)
            let history = inspection.history.map { frame -> JSONValue in
                let patch = frame.withOperations { (try? JSONParser().parse(Array($0))) ?? .null }
                return .object(["version": .int(frame.version), "base": .int(frame.base), "patch": patch])
            }
            return json(.object([
                "kind": .string(address.kind), "id": .string(address.id), "resident": true, "epoch": .string(inspection.epoch),
                "version": .int(inspection.version), "subscribers": .int(inspection.subscribers.count),
                "state": inspection.state, "history": .array(history), "setAside": setAside(address),
            ]))
        }
        guard let stored = try? store.load(address) else {
            return .text(404, "\(address) is neither in memory nor in the state store")
        }
        return json(.object([
            "kind": .string(address.kind), "id": .string(address.id), "resident": false, "epoch": .string(stored.epoch),
            "version": .int(stored.version), "subscribers": 0, "state": stored.state,
            "history": .array(stored.patches.suffix(20).map { .object(["version": .int($0.version)]) }),
            "setAside": setAside(address),
        ]))
    }

    /// What the store set aside of `address` (states that no longer decoded), oldest first.
    private func setAside(_ address: ReactorAddress) -> JSONValue {
        let records = (try? store.setAsides(address)) ?? []
        return .array(records.map { .object(["epoch": .string($0.epoch), "version": .int($0.version), "reason": .string($0.reason)]) })
    }

    /// `POST /admin/instances/KIND/ID/reset`: a new epoch from the initial state; its
    /// subscribers get a snapshot of it.
    private func reset(_ address: ReactorAddress?) -> HTTPResponse {
        guard let address else { return .text(400, "expected /admin/instances/KIND/ID/reset with a valid reactor address") }
        guard let kind = registry.kind(named: address.kind) else { return .text(404, "no reactor kind '\(address.kind)'") }
        guard cluster == nil else { return .text(409, "reset is not available with a cluster yet (docs/cluster.md)") }
        guard let slot = state.withLock({ $0.slots[address] }), slot.instance != nil else {
            return .text(404, "\(address) is not in memory; join it first (or it starts afresh anyway when nothing is stored)")
        }
        let replacement: any HubInstance
        do {
            replacement = try kind.makeInstance(address, instanceContext(for: slot, fresh: true))
        } catch {
            return .text(500, "\(address) could not be created afresh: \(error)")
        }
        guard let old = slot.replace(with: replacement) else { return .text(409, "\(address) is loading; retry") }
        replacement.adopt(old.retire())
        let inspection = replacement.inspect(history: 0)
        logger.info("instance reset", metadata: ["reactor": address.description, "epoch": inspection.epoch])
        return json(.object([
            "kind": .string(address.kind), "id": .string(address.id), "epoch": .string(inspection.epoch),
            "version": .int(inspection.version), "subscribers": .int(inspection.subscribers.count),
        ]))
    }

    /// `GET /admin/connections`: counts by path, user and address; the ten slowest.
    private func connections() -> HTTPResponse {
        let sessions = state.withLock { Array($0.sessions.values) }
        func counts(_ key: (Session) -> String) -> JSONValue {
            var counts: [String: Int] = [:]
            for session in sessions { counts[key(session), default: 0] += 1 }
            var object = JSONObject()
            for (name, count) in counts.sorted(by: { $0.key < $1.key }) { object[name] = .int(count) }
            return .object(object)
        }
        let slowest = sessions.map { ($0, $0.output.queuedBytes) }.sorted { $0.1 > $1.1 }.prefix(10).map { session, bytes -> JSONValue in
            .object([
                "session": .string(session.id.description), "user": session.identity.user.map(JSONValue.string) ?? .null,
                "address": .string(session.peerAddress), "queuedBytes": .int(bytes), "joined": .int(session.joined.count),
            ])
        }
        return json(.object([
            "count": .int(sessions.count),
            "byPath": counts(\.path),
            "byUser": counts { $0.identity.user ?? "-" },
            "byAddress": counts(\.peerAddress),
            "slowest": .array(Array(slowest)),
        ]))
    }
}
