@testable import ReactorHubDaemon
import Testing

@Suite("Command line")
struct CommandLineTests {
    @Test func modesAndTheConfigFile() throws {
        #expect(try CommandLineOptions(arguments: []).mode == .run)
        #expect(try CommandLineOptions(arguments: ["--print-config"]).mode == .printConfig)
        #expect(try CommandLineOptions(arguments: ["-h"]).mode == .help)
        #expect(try CommandLineOptions(arguments: ["--version"]).mode == .version)
        #expect(try CommandLineOptions(arguments: ["--config=/etc/rh.json"]).configFile == "/etc/rh.json")
        let options = try CommandLineOptions(arguments: ["--port", "0", "--host", "::1"])
        #expect(options.flags == [
            .init(flag: "--port", key: "port", value: 0),
            .init(flag: "--host", key: "host", value: "::1"),
        ])
    }

    @Test func errorsNameTheOption() {
        #expect(throws: ConfigurationError("--port must be an integer from 0 to 65535, got \"x\"")) {
            try CommandLineOptions(arguments: ["--port", "x"])
        }
        #expect(throws: ConfigurationError(#"--log-level must be one of "trace", "debug", "info", "notice", "warning", "error", "critical", got "loud""#)) {
            try CommandLineOptions(arguments: ["--log-level", "loud"])
        }
        #expect(throws: ConfigurationError("unknown option '--colour'; see --help")) {
            try CommandLineOptions(arguments: ["--colour"])
        }
        #expect(throws: ConfigurationError("unknown option '--prot=80' (did you mean '--port'?); see --help")) {
            try CommandLineOptions(arguments: ["--prot=80"])
        }
        #expect(throws: ConfigurationError("--config needs a value; see --help")) {
            try CommandLineOptions(arguments: ["--config"])
        }
    }

    @Test func tokenCommandLine() throws {
        let options = try CommandLineOptions(arguments: [
            "token", "--sub", "alice", "--read", "doc/*", "--read", "counter/{sub}", "--act", "doc/notes-{sub}",
            "--ttl", "1h30m", "--config", "/etc/rh.json",
        ])
        #expect(options.mode == .token(TokenRequest(sub: "alice", read: ["doc/*", "counter/{sub}"], act: ["doc/notes-{sub}"], ttlSeconds: 5400)))
        #expect(options.configFile == "/etc/rh.json")
        #expect(try CommandLineOptions(arguments: ["token", "--sub=bob", "--no-rights"]).mode == .token(TokenRequest(sub: "bob", ttlSeconds: 3600)))
        #expect(try CommandLineOptions(arguments: ["token", "--help"]).mode == .tokenHelp)
        #expect(try CommandLineOptions(arguments: ["token", "--sub", "a", "-h"]).mode == .tokenHelp)
    }

    @Test func aTokenWithoutRightsNeedsTheNoRightsFlag() {
        #expect(throws: ConfigurationError(
            "token: no --read or --act given, so the token would allow nothing; give --read PATTERN and/or "
                + "--act PATTERN (e.g. --read 'doc/*'), or --no-rights for a token that only names the user"
        )) {
            try CommandLineOptions(arguments: ["token", "--sub", "alice", "--ttl", "1h"])
        }
        #expect(throws: ConfigurationError("token: --no-rights cannot be given with --read or --act")) {
            try CommandLineOptions(arguments: ["token", "--sub", "alice", "--no-rights", "--act", "doc/*"])
        }
        #expect(throws: ConfigurationError("unknown option '--no-right' (did you mean '--no-rights'?); see --help")) {
            try CommandLineOptions(arguments: ["token", "--sub", "alice", "--no-right"])
        }
    }

    @Test func tokenHelpIsTheTokenCommandsOwn() {
        let usage = CommandLineOptions.tokenUsage
        #expect(usage.hasPrefix("usage: reactorhub token --sub SUB [--read PATTERN]... [--act PATTERN]...\n"))
        for item in ["--sub SUB", "--read PATTERN", "--act PATTERN", "--no-rights", "--ttl DURATION", "--config FILE", "--help"] {
            #expect(usage.contains("\n  \(item)"), "\(item) missing from token --help")
        }
        #expect(!usage.contains("--port"))
        #expect(!usage.contains("--print-config"))
        #expect(usage.split(separator: "\n").allSatisfy { $0.count <= 100 })
    }

    @Test(arguments: [("90s", 90), ("15m", 900), ("1h", 3600), ("7d", 604_800), ("120", 120)])
    func tokenLifetimes(text: String, seconds: Int) throws {
        #expect(try CommandLineOptions(arguments: ["token", "--sub", "a", "--read", "*", "--ttl", text]).mode
            == .token(TokenRequest(sub: "a", read: ["*"], ttlSeconds: seconds)))
    }

    @Test func tokenRefusals() {
        #expect(throws: ConfigurationError("token needs --sub SUB; see reactorhub token --help")) {
            try CommandLineOptions(arguments: ["token", "--read", "*"])
        }
        #expect(throws: ConfigurationError(#"--ttl must be a duration such as 90s, 15m, 1h or 7d, got "soon""#)) {
            try CommandLineOptions(arguments: ["token", "--sub", "a", "--ttl", "soon"])
        }
        #expect(throws: ConfigurationError(#"--ttl must be a duration such as 90s, 15m, 1h or 7d, got "0s""#)) {
            try CommandLineOptions(arguments: ["token", "--sub", "a", "--ttl", "0s"])
        }
        #expect(throws: ConfigurationError("--sub must be 1 to 128 characters, got 129")) {
            try CommandLineOptions(arguments: ["token", "--sub", String(repeating: "a", count: 129)])
        }
        #expect(throws: ConfigurationError("unknown option '--port'; see --help")) {
            try CommandLineOptions(arguments: ["token", "--sub", "a", "--port", "1"])
        }
    }

    @Test func helpListsEveryFlagAndVariableOfTheSchema() {
        let usage = CommandLineOptions.usage
        let flags = ConfigurationSchema.keys.compactMap(\.flag?.usage)
        let variables = ConfigurationSchema.keys.compactMap(\.environment)
        #expect(flags == ["--host ADDR", "--port N", "--web-root DIR", "--log-level LEVEL", "--cluster-redis HOST:PORT", "--node-id ID"])
        #expect(variables == [
            "REACTORHUB_HOST", "REACTORHUB_PORT", "REACTORHUB_LOG_LEVEL", "REACTORHUB_PERSISTENCE_PATH",
            "REACTORHUB_AUTH_SECRET", "REACTORHUB_CLUSTER_REDIS", "REACTORHUB_NODE_ID", "REACTORHUB_SERVER_THREADS",
        ])
        for item in flags + variables + ["REACTORHUB_LWS_EVENT_LOOP", "--config FILE", "--print-config", "--help", "--version", "token --sub SUB", "--ttl DURATION"] {
            #expect(usage.contains(item), "\(item) missing from --help")
        }
        #expect(usage.split(separator: "\n").allSatisfy { $0.count <= 100 })
    }
}
