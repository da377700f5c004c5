import ReactorHubDaemon
import Foundation
import ReactorHubJSON
import Testing

@Suite("Configuration file")
struct ConfigurationFileTests {
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
        let root = FileManager.default.currentDirectoryPath
        let context = ConfigurationContext.live(environment: [:])
        let shipped = try CommandLineOptions(arguments: ["--config", "\(root)/config/reactorhub.json"])
            .effectiveConfiguration(context: context)
        // Run from the package root, the defaults find web/ and config/weather.json there.
        var expected = try ConfigurationLoaderProbe.defaults(workingDirectory: root)
        #expect(shipped.persistence.kind == .sqlite)
        expected.persistence.kind = .sqlite
        #expect(shipped == expected)
        #expect(shipped.webRoot == "\(root)/web")
        #expect(shipped.reactors.weather.dataFile == "\(root)/config/weather.json")
        #expect(shipped.persistence.path == "\(root)/data/reactorhub.sqlite")
    }

    @Test func defaultsMatchTheContract() {
        let defaults = Configuration()
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.port == 8080)
        #expect(defaults.webRoot == "web")
        #expect(defaults.logLevel == .info)
        #expect(defaults.logFormat == .text)
        #expect(defaults.limits.maxMessageBytes == 65536)
        #expect(defaults.limits.maxConnections == 10000)
        #expect(defaults.limits.maxJoinsPerConnection == 64)
        #expect(defaults.limits.actionsPerSecond == 200)
        #expect(defaults.limits.actionBurst == 400)
        #expect(defaults.limits.outboundQueueBytes == 1_048_576)
        #expect(defaults.shutdownGraceMs == 5000)
        #expect(defaults.history.patches == 256)
        #expect(defaults.keepalive.pingSeconds == 30)
        #expect(defaults.keepalive.timeoutSeconds == 60)
        #expect(defaults.reactors.counter.delayMs == 500)
        #expect(defaults.reactors.weather.dataFile == "config/weather.json")
        #expect(defaults.reactors.weather.latencyMs == 300)
        #expect(defaults.reactors.todo.maxItems == 1000)
        #expect(defaults.reactors.todo.maxTitleLength == 200)
        #expect(defaults.reactors.doc.maxBytes == 1_048_576)
        #expect(defaults.persistence == Configuration.Persistence())
        #expect(defaults.persistence.kind == .memory)
        #expect(defaults.persistence.path == "data/reactorhub.sqlite")
        #expect(defaults.persistence.flushMs == 200)
        #expect(defaults.persistence.flushChanges == 1000)
        #expect(defaults.persistence.durableAcks == false)
        #expect(defaults.diagnostics.echoPath == nil)
        #expect(defaults.auth == nil && defaults.admin == nil && defaults.security == nil && defaults.tls == nil)
        #expect(defaults.metrics == nil && defaults.actions == nil && defaults.presence == nil && defaults.cluster == nil)
    }

    @Test func anEmptyOptionalSectionTakesTheContractsDefaults() throws {
        let configuration = try load(#"{"auth": {}, "admin": {}, "security": {}, "tls": {}, "metrics": {}, "actions": {}, "presence": {}, "cluster": {}}"#)
        let auth = try #require(configuration.auth)
        #expect(auth.hs256Secret == nil && auth.publicKeyFile == nil && auth.audience == nil && auth.issuer == nil)
        #expect(auth.leewaySeconds == 30)
        #expect(auth.required == true)
        #expect(auth.timeoutMs == 10000)
        #expect(auth.anonymousRights == .init(read: [], act: []))
        #expect(configuration.admin?.token == .some(nil))
        #expect(configuration.security?.allowedOrigins == [])
        #expect(configuration.tls == Configuration.TLS())
        #expect(configuration.metrics?.enabled == true)
        #expect(configuration.actions?.dedupeSeconds == 300)
        #expect(configuration.actions?.dedupeEntries == 10000)
        #expect(configuration.presence?.maxBytes == 1024)
        #expect(configuration.presence?.maxListed == 100)
        let cluster = try #require(configuration.cluster)
        #expect(cluster.redis == "127.0.0.1:6379")
        #expect(cluster.nodeId == nil)
        #expect(cluster.leaseMs == 5000)
        #expect(cluster.keyPrefix == "rh")
        #expect(cluster.sentinels == [])
        #expect(cluster.masterName == nil)
        #expect(cluster.minReplicas == 0)
    }

    @Test func fileValuesOverrideDefaultsAndKeepTheRest() throws {
        let configuration = try load(
            #"{"port":9000,"logFormat":"json","limits":{"actionBurst":10},"reactors":{"counter":{"delayMs":0}},"#
                + #""auth":{"hs256Secret":"k","anonymousRights":{"read":["doc/*"]}},"diagnostics":{"echoPath":"/echo"}}"#
        )
        #expect(configuration.port == 9000)
        #expect(configuration.logFormat == .json)
        #expect(configuration.limits.actionBurst == 10)
        #expect(configuration.limits.actionsPerSecond == 200)
        #expect(configuration.reactors.counter.delayMs == 0)
        #expect(configuration.auth?.hs256Secret == "k")
        #expect(configuration.auth?.anonymousRights == .init(read: ["doc/*"], act: []))
        #expect(configuration.auth?.leewaySeconds == 30)
        #expect(configuration.diagnostics.echoPath == "/echo")
        #expect(configuration.cluster == nil)
    }

    @Test(arguments: [
        (#"{"port": 70000}"#, "test.json: port must be an integer from 0 to 65535, got 70000"),
        (#"{"port": "80"}"#, #"test.json: port must be an integer from 0 to 65535, got "80""#),
        (#"{"limits": {"maxConnection": 5}}"#,
         "test.json: unknown key 'limits.maxConnection' (did you mean 'limits.maxConnections'?); keys accepted in 'limits': maxMessageBytes, maxConnections, maxJoinsPerConnection, actionsPerSecond, actionBurst, outboundQueueBytes, outboundBudgetBytes, maxInstances, maxPendingActions, maxPendingActionsTotal, maxConnectionsPerAddress, upgradesPerSecond, maxMemoryBytes, maxInstancesPerUser, joinsPerSecond, joinBurst, tlsHandshakesPerSecond, tlsHandshakeBurst"),
        (#"{"maxMessageBytes": 5}"#,
         "test.json: unknown key 'maxMessageBytes' (did you mean 'limits.maxMessageBytes'?); keys accepted at the top level: host, port, webRoot, logLevel, logFormat, limits, shutdownGraceMs, history, keepalive, reactors, persistence, auth, admin, security, tls, metrics, actions, presence, cluster, api, webhooks, diagnostics"),
        (#"{"auth": {"hs256secret": "x"}}"#,
         "test.json: unknown key 'auth.hs256secret' (did you mean 'auth.hs256Secret'?); keys accepted in 'auth': hs256Secret, publicKeyFile, audience, issuer, leewaySeconds, required, timeoutMs, anonymousRights"),
        (#"{"colour": "red"}"#,
         "test.json: unknown key 'colour'; keys accepted at the top level: host, port, webRoot, logLevel, logFormat, limits, shutdownGraceMs, history, keepalive, reactors, persistence, auth, admin, security, tls, metrics, actions, presence, cluster, api, webhooks, diagnostics"),
        (#"{"logLevel": "loud"}"#,
         #"test.json: logLevel must be one of "trace", "debug", "info", "notice", "warning", "error", "critical", got "loud""#),
        (#"{"logFormat": "xml"}"#, #"test.json: logFormat must be one of "text", "json", got "xml""#),
        (#"{"limits": 5}"#, "test.json: 'limits' must be a JSON object, got a number"),
        (#"{"auth": true}"#, "test.json: 'auth' must be a JSON object, got a boolean"),
        (#"{"persistence": {"kind": "disk"}}"#, #"test.json: persistence.kind must be one of "memory", "sqlite", "redis", got "disk""#),
        (#"{"security": {"allowedOrigins": "*"}}"#, #"test.json: security.allowedOrigins must be an array of non-empty strings, got "*""#),
        (#"{"auth": {"anonymousRights": {"read": ["*"], "write": []}}}"#,
         #"test.json: auth.anonymousRights must be an object {"read": [PATTERN…], "act": [PATTERN…]} of non-empty strings, got an object"#),
        (#"{"cluster": {"redis": "localhost"}}"#, #"test.json: cluster.redis must be a "HOST:PORT" string, got "localhost""#),
        (#"{"cluster": {"redis": "localhost:0"}}"#, #"test.json: cluster.redis must be a "HOST:PORT" string, got "localhost:0""#),
        (#"{"cluster": {"sentinels": "10.0.0.1:26379"}}"#,
         #"test.json: cluster.sentinels must be an array of distinct "HOST:PORT" strings, got "10.0.0.1:26379""#),
        (#"{"cluster": {"sentinels": ["10.0.0.1"], "masterName": "m"}}"#,
         #"test.json: cluster.sentinels must be an array of distinct "HOST:PORT" strings, got an array"#),
        (#"{"cluster": {"sentinels": ["10.0.0.1:26379", "10.0.0.1:26379"], "masterName": "m"}}"#,
         #"test.json: cluster.sentinels must be an array of distinct "HOST:PORT" strings, got an array"#),
        (#"{"cluster": {"masterName": ""}}"#, #"test.json: cluster.masterName must be a non-empty string or null, got """#),
        (#"{"cluster": {"minReplicas": -1}}"#, "test.json: cluster.minReplicas must be an integer from 0 to 64, got -1"),
        (#"{"cluster": {"minReplicas": "1"}}"#, #"test.json: cluster.minReplicas must be an integer from 0 to 64, got "1""#),
        (#"{"diagnostics": {"echoPath": "echo"}}"#, #"test.json: diagnostics.echoPath must be a URL path such as "/echo" or null, got "echo""#),
        (#"{"tls": {"certFile": ""}}"#, #"test.json: tls.certFile must be a path to a file or null, got """#),
    ])
    func badFilesAreRefusedInOneLineNamingTheKeyAndWhatIsAccepted(text: String, expected: String) {
        #expect(refusal(text) == expected)
    }

    @Test func invalidJSONIsRefusedNamingTheFile() throws {
        let message = try #require(refusal(#"{"port": 80,}"#))
        #expect(message.hasPrefix("test.json: not valid JSON: "))
        #expect(!message.contains("\n"))
    }

    @Test func aSecretOfTheWrongTypeIsRefusedWithoutQuotingIt() {
        #expect(refusal(#"{"admin": {"token": 123456}}"#) == "test.json: admin.token must be a non-empty string or null, got a number")
        #expect(refusal(#"{"auth": {"hs256Secret": ""}}"#) == "test.json: auth.hs256Secret must be a non-empty string or null, got a string")
    }
}

/// The built-in defaults as the daemon resolves them from a working directory.
enum ConfigurationLoaderProbe {
    static func defaults(workingDirectory: String) throws -> Configuration {
        var context = ConfigurationContext.live(environment: [:])
        context.workingDirectory = workingDirectory
        context.executablePath = nil
        // An empty file: every key keeps its default, resolved as a built-in default.
        context.readFile = { _ in Array("{}".utf8) }
        return try CommandLineOptions(arguments: ["--config", "/empty.json"]).effectiveConfiguration(context: context)
    }
}
