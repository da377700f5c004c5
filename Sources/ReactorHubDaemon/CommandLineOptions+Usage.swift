import ReactorHubJSON

extension CommandLineOptions {
    /// The text of `--help`: every flag and environment variable, from `ConfigurationSchema`.
    public static let usage: String = {
        var help = HelpText()
        help.line("usage: reactorhub [options]")
        help.line(tokenSynopsis(prefix: "       "))
        help.line("       " + typesSynopsis)
        help.line()
        help.paragraph(
            "Runs the ReactorHub daemon: shared ReactorKit-style reactors kept in sync with WebSocket clients at "
                + "ws://HOST:PORT/ws, and the demo page at http://HOST:PORT/."
        )
        help.line()
        help.line("options:")
        help.option(
            "--config FILE",
            "the configuration file; without it, \(ConfigurationLoader.defaultConfigFile) of the working directory "
                + "if present, else ../share/reactorhub/\(ConfigurationLoader.defaultConfigFile) next to the "
                + "executable if present, else built-in defaults"
        )
        for key in ConfigurationSchema.keys {
            guard let flag = key.flag else { continue }
            help.option(flag.usage, "\(key.doc) (\(key.name); \(describeDefault(of: key))\(environmentNote(key)))")
        }
        help.option("--print-config", "print the effective configuration as JSON (secrets as \"***\") and exit")
        help.option("--help", "print this help and exit")
        help.option("--version", "print the version and exit")
        help.line()
        help.line("environment:")
        for key in ConfigurationSchema.keys {
            guard let variable = key.environment else { continue }
            let section = key.section.map { "; brings in the \($0) section" } ?? ""
            let what = key.flag.map { "as \($0.name)" } ?? key.doc
            help.option(variable, "\(key.name), \(what)\(section)")
        }
        help.option(
            "REACTORHUB_LWS_EVENT_LOOP",
            "where libwebsockets waits: libuv (the default; epoll) or poll (its own poll(2) loop); "
                + "no configuration key (docs/operations.md, \"Service threads\")"
        )
        help.line()
        help.line("token: prints a token signed with the configuration's auth.hs256Secret")
        tokenOptions(&help)
        help.line()
        help.line("types: prints TypeScript declarations of a running daemon's kinds (reactorhub types --help)")
        help.line()
        help.paragraph(
            "Precedence: built-in defaults < config file < environment < flags. Relative paths in a config "
                + "file are taken from the folder that holds it; from the environment and flags, from the working "
                + "directory. Every key, its default and what it accepts: README.md \"Running it\"."
        )
        help.paragraph(
            "The daemon prints \"listening on http://HOST:PORT\" once it accepts connections. SIGINT or SIGTERM "
                + "shut it down gracefully (clients are closed with 1001)."
        )
        return help.text
    }()

    private static let typesSynopsis = "reactorhub types --url ws://HOST:PORT/ws [--token JWT]"

    /// The text of `reactorhub types --help`.
    public static let typesUsage: String = {
        var help = HelpText()
        help.line("usage: " + typesSynopsis)
        help.line()
        help.paragraph(
            "Connects to a running daemon, reads the kinds its hello describes, and prints one TypeScript "
                + "declaration file that augments the reactorhub package (interface ReactorKinds): dispatch, join "
                + "and useReactor are then typed for addresses of those kinds, and <Kind>Action and <Kind>Pulse are "
                + "exported. States are unknown (hello does not describe them). Exits 0, or 1 when the daemon "
                + "cannot be read."
        )
        help.line()
        help.line("options:")
        help.option("--url URL", "the daemon's WebSocket URL, ws://HOST:PORT/ws or wss://…")
        help.option("--token JWT", "a token, sent as Authorization: Bearer, for a daemon with auth")
        help.option("--help", "print this help and exit")
        help.line()
        help.line("example:")
        help.line("  reactorhub types --url ws://127.0.0.1:8080/ws > src/reactorhub-kinds.d.ts")
        return help.text
    }()

    /// The text of `reactorhub token --help`.
    public static let tokenUsage: String = {
        var help = HelpText()
        help.line(tokenSynopsis(prefix: "usage: "))
        help.line()
        help.paragraph(
            "Prints one line, a token (JWT) signed with HS256 with the configuration's auth.hs256Secret (or "
                + "REACTORHUB_AUTH_SECRET), for sub SUB with the rights {\"read\":[…],\"act\":[…]} given by --read "
                + "and --act, valid for --ttl. Without --read or --act it is refused (exit 2) unless --no-rights "
                + "says so: a token without rights can join and act on nothing."
        )
        help.line()
        help.line("options:")
        tokenOptions(&help)
        help.option("--help", "print this help and exit")
        help.line()
        help.line("example:")
        help.line("  reactorhub token --config config/secure.json --sub alice --read 'doc/*' --act 'doc/notes-{sub}'")
        return help.text
    }()

    /// The token command's synopsis on two lines, the second aligned under the first option.
    private static func tokenSynopsis(prefix: String) -> String {
        let command = prefix + "reactorhub token "
        return command + "--sub SUB [--read PATTERN]... [--act PATTERN]...\n"
            + String(repeating: " ", count: command.count) + "[--no-rights] [--ttl 1h] [--config FILE]"
    }

    private static func tokenOptions(_ help: inout HelpText) {
        help.option("--sub SUB", "the token's user (its sub claim), 1 to 128 characters")
        help.option("--read PATTERN", "a reactor pattern it may join, e.g. doc/* (repeatable)")
        help.option("--act PATTERN", "a reactor pattern it may act on (repeatable)")
        help.option("--no-rights", "mint it without --read or --act (a token that only names the user)")
        help.option("--ttl DURATION", "how long it is valid: 90s, 15m, 1h (the default) or 7d")
        help.option("--config FILE", "the configuration that holds the secret, found as in reactorhub --help")
    }

    private static func describeDefault(of key: ConfigurationSchema.Key) -> String {
        "default " + ConfigurationReference.compact(ConfigurationSchema.defaultValue(of: key))
    }

    private static func environmentNote(_ key: ConfigurationSchema.Key) -> String {
        key.environment.map { "; env \($0)" } ?? ""
    }
}

/// Text wrapped at 88 columns, options in two columns.
private struct HelpText {
    static let width = 88
    static let column = 31
    var text = ""

    mutating func line(_ line: String = "") {
        text += line + "\n"
    }

    mutating func paragraph(_ words: String) {
        for line in Self.wrap(words, width: Self.width) { self.line(line) }
    }

    mutating func option(_ name: String, _ doc: String) {
        let lines = Self.wrap(doc, width: Self.width - Self.column)
        let head = "  " + name
        let pad = String(repeating: " ", count: Self.column)
        if head.count < Self.column - 1 {
            line(head + String(repeating: " ", count: Self.column - head.count) + (lines.first ?? ""))
            for rest in lines.dropFirst() { line(pad + rest) }
        } else {
            line(head)
            for rest in lines { line(pad + rest) }
        }
    }

    static func wrap(_ words: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in words.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
