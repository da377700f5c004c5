import ReactorHubProtocol
public import Reactor
import ReactorHubDaemon
import ReactorHubEngine
import ReactorHubJSON

/// The reactor kinds the daemon serves, registered by name (`KIND` in `KIND/ID`).
///
/// A kind's settings come from `reactors.KIND` in the configuration file, decoded into
/// its `KindSettings` type: defaults from `init()`, and a key the type does not have is
/// refused at start, naming the key, as for the shipped kinds.
public struct ReactorKinds: Sendable {
    let registrar: KindRegistrar

    init(_ registrar: KindRegistrar) {
        self.registrar = registrar
    }

    /// Registers the shipped kinds (counter, weather, todo, doc) with their settings.
    public func includeShipped() throws {
        try registrar.includeShipped()
    }

    /// Registers `kind`, served by reactors that `make` creates, one per instance.
    /// `restore` adjusts a state read back after a restart (e.g. clears a loading flag
    /// whose effect died with the old process).
    public func register<R: Reactor>(
        _ kind: String,
        restore: (@Sendable (R.State) -> R.State)? = nil,
        _ make: @escaping @Sendable () -> R
    ) throws where R.Action: Decodable, R.State: Codable {
        try validate(kind)
        if let settings = registrar.settings(of: kind) {
            throw KindSettingsError("reactors.\(kind): kind '\(kind)' takes no settings, got \(settings.kind.phrase); register it with settings:")
        }
        registrar.registry.register(kind, restore: restore, make)
    }

    /// Registers `kind` with settings of type `S` read from `reactors.KIND`; `make`
    /// receives them and creates one reactor per instance.
    public func register<R: Reactor, S: KindSettings>(
        _ kind: String,
        settings: S.Type,
        restore: (@Sendable (R.State) -> R.State)? = nil,
        _ make: @escaping @Sendable (S) -> R
    ) throws where R.Action: Decodable, R.State: Codable {
        try validate(kind)
        let decoded = try S.decode(registrar.settings(of: kind), path: "reactors.\(kind)")
        registrar.registry.register(kind, restore: restore) { make(decoded) }
    }

    /// The kinds registered so far, in order.
    public var names: [String] { registrar.registry.names }

    private func validate(_ kind: String) throws {
        guard ReactorAddress.isValidKind(kind) else {
            throw KindSettingsError("kind name '\(kind)' must match [a-z][a-z0-9-]{0,31}")
        }
        guard !names.contains(kind) else {
            throw KindSettingsError("kind '\(kind)' is registered twice")
        }
    }
}
