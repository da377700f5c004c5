import ReactorHubStore
import ReactorHubProtocol
import ReactorHubJSON
public import Reactor
import ReactorHubLocking

/// The reactor kinds a hub serves, by name. A Swift developer adds one in one line:
///
/// ```swift
/// registry.register("counter") { CounterViewReactor() }
/// ```
///
/// The action enum must be `Decodable` (the wire shape of PROTOCOL.md is derived from its
/// cases) and the state `Encodable` (`@Pulse` properties become `pulse` messages).
public final class ReactorRegistry: Sendable {
    private let kinds = Locked<[String: ReactorKind]>([:])
    private let order = Locked<[String]>([])

    /// Creates an empty registry.
    public init() {}

    /// Registers `kind`, served by reactors that `make` creates, one per instance.
    /// `restore` adjusts a state read back after a restart (e.g. clears `isLoading`,
    /// whose effect died with the old process). Registering a name twice replaces it.
    public func register<R: Reactor>(
        _ kind: String,
        restore: (@Sendable (R.State) -> R.State)? = nil,
        _ make: @escaping @Sendable () -> R
    ) where R.Action: Decodable, R.State: Codable {
        precondition(ReactorAddress.isValidKind(kind), "kind name '\(kind)' must match [a-z][a-z0-9-]{0,31}")
        let entry = ReactorKind(
            name: kind,
            description: Self.describe(R.self, sample: make()),
            makeInstance: { address, context in
                try LocalInstance<R>(
                    address: address,
                    reactor: make(),
                    restored: try Self.restore(R.self, address, context, restore),
                    context: context
                )
            },
            makeHosted: { host, address, context in
                await host.makeInstance(make, restore: restore, address: address, context: context)
            }
        )
        kinds.withLock { $0[kind] = entry }
        order.withLock { names in
            if !names.contains(kind) { names.append(kind) }
        }
    }

    /// Reads what the store kept of `address` and decodes it as `R.State`. A state that no
    /// longer decodes (the Swift type changed) is set aside and the instance starts afresh.
    private static func restore<R: Reactor>(
        _ type: R.Type,
        _ address: ReactorAddress,
        _ context: ReactorKind.InstanceContext,
        _ adjust: (@Sendable (R.State) -> R.State)?
    ) throws -> LocalInstance<R>.Restored? where R.Action: Decodable, R.State: Codable {
        guard !context.fresh, var stored = try context.store.load(address) else { return nil }
        do {
            var state = try JSONValueDecoder().decode(R.State.self, from: stored.state)
            if let adjust { state = adjust(state) }
            if stored.continuity == .unproven {
                // Versions past the stored one may have reached clients before an unclean
                // stop: a new epoch, so that no version number is issued twice in one.
                context.logger.info(
                    "continuing under a new epoch after an unclean stop",
                    metadata: ["kind": address.kind, "id": address.id, "epoch": stored.epoch, "version": String(stored.version)]
                )
                stored.epoch = Epoch.make()
                stored.patches = []
                stored.continuity = .proven
                context.store.record(StoredChange(
                    address: address, epoch: stored.epoch, version: stored.version, state: stored.state,
                    patch: nil, keepPatches: context.historyCapacity
                ))
            }
            return LocalInstance<R>.Restored(state: state, stored: stored)
        } catch {
            context.logger.warning(
                "stored state no longer decodes; set aside, starting afresh with a new epoch",
                metadata: [
                    "kind": address.kind, "id": address.id, "epoch": stored.epoch,
                    "version": String(stored.version), "error": "\(error)",
                ]
            )
            context.store.setAside(address, reason: "\(error)")
            return nil
        }
    }

    /// The registered kind names, in registration order.
    public var names: [String] {
        order.withLock { $0 }
    }

    func kind(named name: String) -> ReactorKind? {
        kinds.withLock { $0[name] }
    }

    /// `{"counter":{"actions":{…},"pulses":[…]},…}` for `hello`, in registration order.
    var helloDescription: JSONValue {
        var object = JSONObject()
        for name in names {
            if let kind = kind(named: name) {
                object[name] = kind.description
            }
        }
        return .object(object)
    }

    private static func describe<R: Reactor>(_ type: R.Type, sample: R) -> JSONValue
    where R.Action: Decodable, R.State: Encodable {
        let actions = ActionSchema(describing: R.Action.self).jsonValue
        let pulses = (try? StateEncoding.encode(sample.initialState).pulses.map { JSONValue.string($0.name) }) ?? []
        return .object(["actions": actions, "pulses": .array(pulses)])
    }
}
