@testable import ReactorHubDaemon
import ReactorHubJSON
import Testing

@Suite("--print-config")
struct PrintConfigTests {
    let disk = VirtualDisk.installed

    @Test func everyKeyInSchemaOrderWithoutTheAbsentOptionalSections() throws {
        let printed = try disk.load().json()
        #expect(printed.objectValue?.keys == [
            "host", "port", "webRoot", "logLevel", "logFormat", "limits", "shutdownGraceMs", "history", "keepalive",
            "reactors", "persistence", "webhooks", "diagnostics",
        ])
        #expect(printed["limits"]?.objectValue?.keys == [
            "maxMessageBytes", "maxConnections", "maxJoinsPerConnection", "actionsPerSecond", "actionBurst", "outboundQueueBytes",
            "outboundBudgetBytes", "maxInstances", "maxPendingActions", "maxPendingActionsTotal", "maxConnectionsPerAddress",
            "upgradesPerSecond", "maxMemoryBytes", "maxInstancesPerUser", "joinsPerSecond", "joinBurst",
            "tlsHandshakesPerSecond", "tlsHandshakeBurst",
        ])
        #expect(printed["reactors"]?.objectValue?.keys == ["counter", "weather", "todo", "doc"])
        #expect(printed["persistence"] == [
            "kind": "memory", "path": "/home/me/data/reactorhub.sqlite", "flushMs": 200, "flushChanges": 1000, "durableAcks": false,
        ])
        #expect(printed["diagnostics"] == ["echoPath": .null, "idleEvictionMs": 60000])
        #expect(printed["webRoot"] == "/opt/rh/share/reactorhub/web")
    }

    @Test func presentOptionalSectionsArePrintedWhole() throws {
        let disk = disk.adding("/home/me/c.json", #"{"presence": {"maxListed": 5}, "metrics": {}, "cluster": {"nodeId": "a"}}"#)
        let printed = try disk.load(["--config", "c.json"]).json()
        #expect(printed.objectValue?.keys.suffix(5) == ["metrics", "presence", "cluster", "webhooks", "diagnostics"])
        #expect(printed["presence"] == ["maxBytes": 1024, "maxListed": 5])
        #expect(printed["metrics"] == ["enabled": true])
        #expect(printed["cluster"] == [
            "redis": "127.0.0.1:6379", "nodeId": "a", "leaseMs": 5000, "keyPrefix": "rh", "sentinels": [], "masterName": .null,
            "minReplicas": 0,
        ])
        #expect(printed["persistence"]?["kind"] == "redis")
        #expect(printed["auth"] == nil)
    }

    @Test func secretsAreMasked() throws {
        let disk = disk.adding("/home/me/c.json", #"{"auth": {"audience": "hub"}, "admin": {"token": "root-token"}}"#)
        let configuration = try disk.load(["--config", "c.json"], environment: ["REACTORHUB_AUTH_SECRET": "s3cret"])
        let text = PrettyPrinter.render(configuration.json())
        #expect(!text.contains("s3cret") && !text.contains("root-token"))
        #expect(configuration.json()["auth"] == [
            "hs256Secret": "***", "publicKeyFile": .null, "audience": "hub", "issuer": .null, "leewaySeconds": 30,
            "required": true, "timeoutMs": 10000, "anonymousRights": ["read": [], "act": []],
        ])
        #expect(configuration.json()["admin"] == ["token": "***"])
        #expect(configuration.json(revealingSecrets: true)["admin"] == ["token": "root-token"])
    }

    @Test func anUnsetSecretIsPrintedAsNull() throws {
        let disk = disk.adding("/home/me/c.json", #"{"admin": {}}"#)
        #expect(try disk.load(["--config", "c.json"]).json()["admin"] == ["token": .null])
    }

    @Test func printedConfigurationLoadsBackToTheSameConfiguration() throws {
        let disk = disk
            .adding("/home/me/c.json", #"{"port": 1234, "limits": {"outboundQueueBytes": 4096}, "persistence": {"kind": "sqlite"}, "auth": {"hs256Secret": "k"}, "security": {"allowedOrigins": ["*"]}}"#)
        let configuration = try disk.load(["--config", "c.json"])
        var writer = JSONWriter()
        writer.writeValue(configuration.json(revealingSecrets: true))
        let reloaded = try disk.adding("/home/me/printed.json", String(decoding: writer.bytes, as: UTF8.self))
            .load(["--config", "printed.json"])
        #expect(reloaded == configuration)
        #expect(reloaded.port == 1234)
    }
}
