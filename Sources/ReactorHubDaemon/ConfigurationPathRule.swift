/// How a path key is resolved (CONFIG.md "Relative paths…") and what must be there.
///
/// A relative path from a file is taken from the folder that holds that file; from an
/// environment variable or a flag, from the working directory; a built-in default of an
/// `installed` key is looked for in `../share/reactorhub/` next to the executable first.
struct ConfigurationPathRule: Sendable, Equatable {
    /// What the resolved path must name when the daemon starts.
    enum Requirement: Sendable, Equatable {
        /// An existing folder.
        case folder
        /// An existing file.
        case file
        /// Anything: the key's user creates what is missing (the database and its folder).
        case creatable

        /// What the key accepts, for messages.
        var accepted: String {
            switch self {
            case .folder: "a path to a folder"
            case .file: "a path to a file"
            case .creatable: "a file path"
            }
        }
    }

    /// What must exist.
    let requirement: Requirement
    /// Whether the built-in default names something `make install` puts under
    /// `share/reactorhub/` (the demo page, the weather data).
    let installed: Bool

    /// An existing folder, installed by default.
    static let installedFolder = Self(requirement: .folder, installed: true)
    /// An existing file, installed by default.
    static let installedFile = Self(requirement: .file, installed: true)
    /// An existing file with no installed default.
    static let file = Self(requirement: .file, installed: false)
    /// A file the daemon creates when missing.
    static let creatable = Self(requirement: .creatable, installed: false)
}
