import JSON
public import Reactor
import Synchronization

/// The reactor kinds a hub serves, by name. A Swift developer adds one in one line:
///
/// ```swift
/// registry.register("counter") { CounterViewReactor() }
/// ```
///
/// The action enum must be `Decodable` (the wire shape of PROTOCOL.md is derived from its
/// cases) and the state `Encodable` (`@Pulse` properties become `pulse` messages).
public final class ReactorRegistry: Sendable {
    private let kinds = Mutex<[String: ReactorKind]>([:])
    private let order = Mutex<[String]>([])

    /// Creates an empty registry.
    public init() {}

    /// Registers `kind`, served by reactors that `make` creates, one per instance.
    /// Registering a name twice replaces the earlier kind.
    public func register<R: Reactor>(_ kind: String, _ make: @escaping @Sendable () -> R)
    where R.Action: Decodable, R.State: Encodable {
        precondition(ReactorAddress.isValidKind(kind), "kind name '\(kind)' must match [a-z][a-z0-9-]{0,31}")
        let entry = ReactorKind(
            name: kind,
            description: Self.describe(R.self, sample: make()),
            makeInstance: { address, context in
                let instance = try ReactorInstance<R>(
                    address: address,
                    stream: context.stream,
                    reactor: make(),
                    channel: context.channel,
                    historyCapacity: context.historyCapacity,
                    logger: context.logger
                )
                instance.startPublishing()
                return instance
            }
        )
        kinds.withLock { $0[kind] = entry }
        order.withLock { names in
            if !names.contains(kind) { names.append(kind) }
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
