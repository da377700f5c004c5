/// An optional section of the file: its name, what it is for, and its keys.
struct ConfigurationSection: Sendable {
    /// `auth`.
    let name: String
    /// One line: what the section brings in.
    let doc: String
    /// Its keys, named `auth.…`.
    let keys: [ConfigurationKey<Configuration>]

    /// Declares the optional section `name`, bound to `keyPath`, with its keys.
    static func optional<Section: OptionalSection>(
        _ name: String,
        _ keyPath: any WritableKeyPath<Configuration, Section?> & Sendable,
        _ doc: String,
        _ keys: [ConfigurationKey<Section>]
    ) -> Self {
        Self(name: name, doc: doc, keys: keys.map { $0.inSection(name, keyPath) })
    }
}
