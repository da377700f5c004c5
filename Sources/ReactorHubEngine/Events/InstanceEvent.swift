public import ReactorHubProtocol
public import ReactorHubJSON

/// Something that happened to an instance, told to whoever listens outside the engine
/// (webhooks, API.md "Webhooks"). The owner of the instance tells it: once per event in a
/// cluster too.
public enum InstanceEvent: Sendable, Equatable {
    /// The instance came into memory (a first join or read).
    case created(ReactorAddress, epoch: String, version: Int)
    /// The instance left memory (idle eviction).
    case evicted(ReactorAddress, epoch: String, version: Int)
    /// A `@Pulse` fired at `version`.
    case pulse(ReactorAddress, version: Int, name: String, value: JSONValue)
    /// An action was accepted: its sender's user (nil: anonymous), the action in its object
    /// form, and its ack's `version` and `applied`.
    case action(ReactorAddress, user: String?, action: JSONValue, version: Int, applied: Int)

    /// The kinds of events, by the name API.md gives them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case created = "instance.created"
        case evicted = "instance.evicted"
        case pulse
        case action
    }

    /// Which kind of event this is.
    public var kind: Kind {
        switch self {
        case .created: .created
        case .evicted: .evicted
        case .pulse: .pulse
        case .action: .action
        }
    }

    /// The instance it happened to.
    public var address: ReactorAddress {
        switch self {
        case .created(let address, _, _), .evicted(let address, _, _), .pulse(let address, _, _, _),
             .action(let address, _, _, _, _):
            address
        }
    }
}

/// Hears the engine's instance events: the engine's seam for events going out, which the
/// daemon wires to its webhooks.
public protocol InstanceEventSink: AnyObject, Sendable {
    /// Whether events of `kind` in `address` are heard at all; the engine builds none that
    /// are not.
    func wants(_ kind: InstanceEvent.Kind, in address: ReactorAddress) -> Bool
    /// Takes one event. Called on an instance's serial context, in the order of its events:
    /// it must return at once and never wait on a receiver.
    func emit(_ event: InstanceEvent)
}

extension InstanceEventSink {
    /// Emits the event `make` builds, when events of `kind` in `address` are heard.
    func emit(_ kind: InstanceEvent.Kind, in address: ReactorAddress, _ make: () -> InstanceEvent) {
        guard wants(kind, in: address) else { return }
        emit(make())
    }
}

extension JSONValue {
    /// An action payload in its object form: a bare name `"increase"` is `{"type":"increase"}`.
    package var actionObjectForm: JSONValue {
        if case .string(let name) = self { return .object(["type": .string(name)]) }
        return self
    }
}
