package import ReactorHubEngine
package import ReactorHubJSON

/// What an embedder's registration closure works with (`ReactorHubServer.ReactorKinds`
/// wraps it): the registry being filled, and the configuration with each kind's settings.
package struct KindRegistrar: Sendable {
    /// The registry the daemon will serve.
    package let registry = ReactorRegistry()
    /// The loaded configuration.
    package let configuration: Configuration

    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Registers counter, weather, todo and doc with their `reactors.*` settings.
    package func includeShipped() throws {
        try ShippedKinds.register(into: registry, for: configuration)
    }

    /// The object under `reactors.KIND` of a kind that is not one of the shipped four.
    package func settings(of kind: String) -> JSONValue? {
        configuration.reactors.custom[kind]
    }

    /// Settings given for kinds nobody registered: a typo, or a kind left out.
    package func unclaimedSettings() -> [String] {
        configuration.reactors.custom.keys.filter { !registry.names.contains($0) }.sorted()
    }
}

/// How an embedder registers its kinds; `reactorhub` registers the shipped ones.
package typealias KindRegistration = @Sendable (KindRegistrar) throws -> Void
