/// Lexical path arithmetic (no disk access): what `..` and `.` mean is decided on the
/// text, as a shell user reads it.
enum Paths {
    /// `path` when absolute, else `path` under `base`; `.` and `..` removed.
    static func resolve(_ path: String, against base: String) -> String {
        normalized(path.hasPrefix("/") ? path : base + "/" + path)
    }

    /// The folder that holds `path`.
    static func directory(of path: String) -> String {
        let normalized = normalized(path)
        guard let slash = normalized.lastIndex(of: "/") else { return "." }
        return slash == normalized.startIndex ? "/" : String(normalized[..<slash])
    }

    /// An absolute path without `.`, `..` or repeated slashes.
    static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
