import Daemon
import JSON
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    func load(_ text: String) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        try configuration.apply(fileContents: Array(text.utf8), source: "test.json")
        return configuration
    }

    func refusal(_ text: String) -> String? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func shippedFileEqualsTheBuiltInDefaultsExceptWhereItSaysSo() throws {
        let text = try String(contentsOfFile: "config/reactorhub.json", encoding: .utf8)
        let shipped = try load(text)
        var expected = Configuration()
        expected.persistence = shipped.persistence
        #expect(shipped == expected)
    }

    @Test func defaultsMatchTheContract() {
        let defaults = Configuration()
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.port == 8080)
        #expect(defaults.webRoot == "web")
        #expect(defaults.logLevel == .info)
        #expect(defaults.limits.maxMessageBytes == 65536)
        #expect(defaults.limits.maxConnections == 10000)
        #expect(defaults.limits.maxJoinsPerConnection == 64)
        #expect(defaults.limits.actionsPerSecond == 200)
        #expect(defaults.limits.actionBurst == 400)
        #expect(defaults.limits.outboundQueueBytes == 1_048_576)
        #expect(defaults.shutdownGraceMs == 5000)
        #expect(defaults.history.patches == 256)
        #expect(defaults.reactors.counter.delayMs == 500)
        #expect(defaults.reactors.weather.dataFile == "config/weather.json")
        #expect(defaults.reactors.weather.latencyMs == 300)
        #expect(defaults.reactors.todo.maxItems == 1000)
        #expect(defaults.reactors.todo.maxTitleLength == 200)
        #expect(defaults.reactors.doc.maxBytes == 1_048_576)
    }

    @Test func fileValuesOverrideDefaultsAndKeepTheRest() throws {
        let configuration = try load(#"{"port":9000,"limits":{"actionBurst":10},"reactors":{"counter":{"delayMs":0}}}"#)
        #expect(configuration.port == 9000)
        #expect(configuration.limits.actionBurst == 10)
        #expect(configuration.limits.actionsPerSecond == 200)
        #expect(configuration.reactors.counter.delayMs == 0)
    }

    @Test(arguments: [
        (#"{"port": 70000}"#, "test.json: port must be an integer from 0 to 65535, got 70000"),
        (#"{"port": "80"}"#, #"test.json: port must be an integer from 0 to 65535, got "80""#),
        (#"{"limits": {"maxConnection": 5}}"#, "test.json: unknown key 'limits.maxConnection'; keys accepted in 'limits': maxMessageBytes, maxConnections, maxJoinsPerConnection, actionsPerSecond, actionBurst, outboundQueueBytes"),
        (#"{"colour": "red"}"#, "test.json: unknown key 'colour'"),
        (#"{"logLevel": "loud"}"#, "test.json: logLevel must be one of"),
        (#"{"limits": 5}"#, "test.json: 'limits' must be a JSON object, got a number"),
        (#"{"port": 80,}"#, "test.json: not valid JSON"),
        (#"{"persistence": {"kind": "redis"}}"#, #"test.json: persistence.kind must be one of "memory", "sqlite", got "redis""#),
        (#"{"keepalive": {"pingSeconds": 30, "timeoutSeconds": 30}}"#, "keepalive.timeoutSeconds must be greater"),
    ])
    func badFilesAreRefusedNamingTheKey(text: String, expected: String) {
        let message = refusal(text)
        #expect(message?.hasPrefix(expected) == true || message?.contains(expected) == true, "got: \(message ?? "accepted")")
    }

    @Test func precedenceIsDefaultsFileEnvironmentFlags() throws {
        let options = try CommandLineOptions(arguments: ["--config", "x.json", "--port", "7000", "--log-level", "debug"])
        let configuration = try options.effectiveConfiguration(
            environment: ["REACTORHUB_PORT": "6000", "REACTORHUB_HOST": "0.0.0.0", "REACTORHUB_LOG_LEVEL": "error"]
        ) { path in
            path == "x.json" ? Array(#"{"port":5000,"host":"10.0.0.1","webRoot":"site"}"#.utf8) : nil
        }
        #expect(configuration.port == 7000)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.webRoot == "site")
    }

    @Test func commandLineErrorsNameTheOption() {
        #expect(throws: ConfigurationError("--port must be an integer from 0 to 65535, got \"x\"")) {
            try CommandLineOptions(arguments: ["--port", "x"])
        }
        #expect(throws: ConfigurationError("unknown option '--colour'; see --help")) {
            try CommandLineOptions(arguments: ["--colour"])
        }
        #expect(throws: ConfigurationError("--config needs a value; see --help")) {
            try CommandLineOptions(arguments: ["--config"])
        }
        #expect(throws: ConfigurationError("missing.json: configuration file not found or not readable")) {
            try CommandLineOptions(arguments: ["--config", "missing.json"]).effectiveConfiguration(environment: [:]) { _ in nil }
        }
    }

    @Test func printConfigRoundTripsThroughTheLoader() throws {
        var changed = Configuration()
        changed.port = 1234
        changed.limits.outboundQueueBytes = 4096
        changed.persistence.kind = .sqlite
        var writer = JSONWriter()
        writer.writeValue(changed.json)
        #expect(try load(String(decoding: writer.bytes, as: UTF8.self)) == changed)
    }
}
