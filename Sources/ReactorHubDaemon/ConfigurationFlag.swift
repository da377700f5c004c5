/// A command-line flag that sets one key: `--port N`.
struct ConfigurationFlag: Sendable, Equatable, ExpressibleByStringLiteral {
    /// `--port`.
    let name: String
    /// `N`: what the value stands for, in `--help`.
    let placeholder: String

    /// `"--port N"`.
    init(stringLiteral text: String) {
        let parts = text.split(separator: " ", maxSplits: 1)
        name = String(parts[0])
        placeholder = parts.count > 1 ? String(parts[1]) : "VALUE"
    }

    /// The flag as `--help` shows it: `--port N`.
    var usage: String { "\(name) \(placeholder)" }
}
