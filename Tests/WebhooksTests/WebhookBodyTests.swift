import Foundation
@testable import ReactorHubAuth
import ReactorHubEngine
import ReactorHubJSON
import ReactorHubProtocol
@testable import ReactorHubWebhooks
import Testing

/// What a delivery carries (API.md "Webhooks"): the body of each event and its signature.
@Suite("Webhook bodies and signatures")
struct WebhookBodyTests {
    static let address = ReactorAddress("todo/list")!
    static let time = Date(timeIntervalSince1970: 1_767_225_600.042)

    static func body(_ event: InstanceEvent) throws -> JSONValue {
        try JSONParser().parse(WebhookBody.make(event, id: "e1", time: time))
    }

    @Test func eachEventHasItsMembers() throws {
        let head: JSONObject = ["id": "e1", "time": "2026-01-01T00:00:00.042Z", "reactor": "todo/list"]
        func with(_ members: JSONObject) -> JSONValue {
            var object = head
            for (key, value) in members { object[key] = value }
            return .object(object)
        }
        #expect(try Self.body(.action(Self.address, user: "alice", action: ["type": "add", "title": "x"], version: 4, applied: 5))
            == with(["event": "action", "sub": "alice", "action": ["type": "add", "title": "x"], "version": 4, "applied": 5]))
        #expect(try Self.body(.action(Self.address, user: nil, action: ["type": "clearCompleted"], version: 4, applied: 4))
            == with(["event": "action", "sub": .null, "action": ["type": "clearCompleted"], "version": 4, "applied": 4]))
        #expect(try Self.body(.pulse(Self.address, version: 3, name: "alertMessage", value: "increased!"))
            == with(["event": "pulse", "version": 3, "name": "alertMessage", "value": "increased!"]))
        #expect(try Self.body(.created(Self.address, epoch: "e3f1", version: 0)) == with(["event": "instance.created", "epoch": "e3f1", "version": 0]))
        #expect(try Self.body(.evicted(Self.address, epoch: "e3f1", version: 9)) == with(["event": "instance.evicted", "epoch": "e3f1", "version": 9]))
    }

    @Test func timesAreRFC3339InUTCWithMilliseconds() {
        #expect(WebhookBody.rfc3339(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(WebhookBody.rfc3339(Date(timeIntervalSince1970: 1_767_225_599.999)) == "2025-12-31T23:59:59.999Z")
        #expect(WebhookBody.rfc3339(Self.time) == "2026-01-01T00:00:00.042Z")
    }

    @Test func theSignatureIsTheHexHMACOfTimestampDotBody() {
        // Python: hmac.new(b"secret", b'1700000000.{"id":"x"}', hashlib.sha256).hexdigest()
        let signature = WebhookSignature.header(
            body: Array(#"{"id":"x"}"#.utf8), timestamp: 1_700_000_000, secret: Array("secret".utf8),
            sign: { message, key in HMACSHA256.mac(message, key: key) }
        )
        #expect(signature == "sha256=2f7852138f9dbd8d61c07c2cfb0b8ac96a46a32d78d4527788fb42fcb409a493")
    }

    @Test func aReceiverHearsItsEventsOfItsReactors() throws {
        let webhook = Webhook(
            url: try #require(URL(string: "http://127.0.0.1:9/h")), secret: [1], events: [.pulse],
            reactors: { $0.kind == "counter" }
        )
        #expect(webhook.hears(.pulse, in: try #require(ReactorAddress("counter/a"))))
        #expect(!webhook.hears(.action, in: try #require(ReactorAddress("counter/a"))))
        #expect(!webhook.hears(.pulse, in: Self.address))
    }
}
