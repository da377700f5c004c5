import ReactorHubJSON
@testable import ReactorHubDaemon
import Testing

/// `webhooks` and `api` (CONFIG.md): defaults, what is refused, and secrets never printed.
@Suite("Webhooks and API configuration")
struct WebhooksConfigurationTests {
    let disk = VirtualDisk.installed

    @Test func aReceiverGetsTheDefaultsOfWhatItLeavesOut() throws {
        let disk = disk.adding("/home/me/c.json", #"{"webhooks": [{"url": "http://127.0.0.1:9000/hooks", "secret": "k"}]}"#)
        let webhook = try #require(try disk.load(["--config", "c.json"]).webhooks.first)
        #expect(webhook == Configuration.Webhook(url: "http://127.0.0.1:9000/hooks", secret: "k"))
        #expect(webhook.events == ["pulse", "action", "instance.created", "instance.evicted"])
        #expect(webhook.reactors == ["*"])
        #expect((webhook.timeoutMs, webhook.maxAttempts, webhook.queueBytes) == (5000, 8, 8_388_608))
    }

    @Test func everyMemberIsRead() throws {
        let disk = disk.adding("/home/me/c.json", #"""
        {"webhooks": [{"url": "https://hooks.example/in", "secret": "k", "events": ["pulse", "action"], "reactors": ["todo/*"],
                       "timeoutMs": 250, "maxAttempts": 3, "queueBytes": 4096}]}
        """#)
        let webhook = try #require(try disk.load(["--config", "c.json"]).webhooks.first)
        #expect(webhook.events == ["pulse", "action"])
        #expect(webhook.reactors == ["todo/*"])
        #expect((webhook.timeoutMs, webhook.maxAttempts, webhook.queueBytes) == (250, 3, 4096))
    }

    @Test(arguments: [
        #"{"url": "ftp://x/", "secret": "SECRET-1"}"#, #"{"url": "http://x/"}"#, #"{"url": "http://x/", "secret": ""}"#,
        #"{"url": "http://x/", "secret": "SECRET-1", "events": ["pulses"]}"#, #"{"url": "http://x/", "secret": "SECRET-1", "events": []}"#,
        #"{"url": "http://x/", "secret": "SECRET-1", "reactors": ["doc/{sub}"]}"#, #"{"url": "http://x/", "secret": "SECRET-1", "reactors": ["a/b/c"]}"#,
        #"{"url": "http://x/", "secret": "SECRET-1", "timeoutMs": 50}"#, #"{"url": "http://x/", "secret": "SECRET-1", "maxAttempts": 101}"#,
        #"{"url": "http://x/", "secret": "SECRET-1", "queueBytes": 10}"#, #"{"url": "http://x/", "secret": "SECRET-1", "colour": 1}"#,
        #""http://x/""#,
    ])
    func aBadReceiverIsRefusedNamingTheKeyWithoutItsSecret(_ receiver: String) throws {
        let disk = disk.adding("/home/me/c.json", #"{"webhooks": [\#(receiver)]}"#)
        do {
            _ = try disk.load(["--config", "c.json"])
            Issue.record("\(receiver) was accepted")
        } catch {
            #expect(error.message.contains("webhooks must be an array of objects"))
            #expect(!error.message.contains("SECRET-1"))
        }
    }

    @Test func secretsAreNeverPrinted() throws {
        let disk = disk.adding("/home/me/c.json", #"{"webhooks": [{"url": "http://h/", "secret": "SECRET-1"}, {"url": "http://i/", "secret": "SECRET-2"}]}"#)
        let configuration = try disk.load(["--config", "c.json"])
        let text = PrettyPrinter.render(configuration.json())
        #expect(!text.contains("SECRET-1") && !text.contains("SECRET-2"))
        #expect(configuration.json()["webhooks"]?[0]?["secret"] == "***")
        #expect(configuration.json(revealingSecrets: true)["webhooks"]?[1]?["secret"] == "SECRET-2")
    }

    @Test func theAPIIsOnUnlessItsSectionTurnsItOff() throws {
        #expect(try disk.load().hubConfiguration(serverName: "x").apiEnabled)
        let off = disk.adding("/home/me/c.json", #"{"api": {"enabled": false}}"#)
        let configuration = try off.load(["--config", "c.json"])
        #expect(!configuration.hubConfiguration(serverName: "x").apiEnabled)
        #expect(configuration.json()["api"] == ["enabled": false])
    }

    @Test func aBodyMayBeAsLargeAsAMessage() throws {
        let disk = disk.adding("/home/me/c.json", #"{"limits": {"maxMessageBytes": 2048}}"#)
        let configuration = try disk.load(["--config", "c.json"])
        #expect(configuration.transportConfiguration().maxRequestBodyBytes == 2048)
        #expect(configuration.hubConfiguration(serverName: "x").maxMessageBytes == 2048)
    }
}
