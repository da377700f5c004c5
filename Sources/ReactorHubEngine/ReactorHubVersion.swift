/// The version of ReactorHub, written once: `hello.server` (`reactorhub/VERSION`) and
/// `reactorhub --version` report it.
public enum ReactorHubVersion {
    /// `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"
}
