import Foundation
import ReactorHubAuth
import ReactorHubJSON

extension ConfigurationValueType where Value == [Configuration.Webhook] {
    /// `[{"url","secret","events","reactors","timeoutMs","maxAttempts","queueBytes"}…]`
    /// (shared/API.md "Webhooks"), each checked: an `http(s)://` URL, a secret, known
    /// events, rights patterns without `{sub}`, and the numbers in range.
    static var webhooks: Self {
        Self(
            accepted: #"an array of objects {"url": "http(s)://…", "secret": "…"} with optional "events" (of "pulse", "action", "instance.created", "instance.evicted"), "reactors" (rights patterns such as "todo/*", no {sub}), "timeoutMs" (100 to 600000), "maxAttempts" (1 to 100) and "queueBytes" (1024 to 1073741824)"#,
            decode: { value in
                guard case .array(let elements) = value else { return nil }
                var webhooks: [Configuration.Webhook] = []
                for element in elements {
                    guard let webhook = decodeWebhook(element) else { return nil }
                    webhooks.append(webhook)
                }
                return webhooks
            },
            encode: { webhooks in .array(webhooks.map(encodeWebhook)) },
            parseText: { _ in nil },
            redact: { value in
                guard case .array(let elements) = value else { return value }
                return .array(elements.map { element in
                    guard case .object(var object) = element, object["secret"] != nil else { return element }
                    object["secret"] = "***"
                    return .object(object)
                })
            }
        )
    }

    private static let members: Set<String> = ["url", "secret", "events", "reactors", "timeoutMs", "maxAttempts", "queueBytes"]

    private static func decodeWebhook(_ value: JSONValue) -> Configuration.Webhook? {
        guard case .object(let object) = value, object.keys.allSatisfy(members.contains),
              case .string(let url)? = object["url"], let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()),
              parsed.host?.isEmpty == false,
              case .string(let secret)? = object["secret"], !secret.isEmpty
        else { return nil }
        var webhook = Configuration.Webhook(url: url, secret: secret)
        if let events = object["events"] {
            guard let names = ConfigurationValueType<[String]>.decodeTexts(events), !names.isEmpty,
                  names.allSatisfy(Configuration.Webhook.eventNames.contains) else { return nil }
            webhook.events = names
        }
        if let reactors = object["reactors"] {
            guard let patterns = ConfigurationValueType<[String]>.decodeTexts(reactors), !patterns.isEmpty,
                  patterns.allSatisfy({ (try? RightsPattern($0))?.usesSubject == false }) else { return nil }
            webhook.reactors = patterns
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) -> Int?? {
            guard let member = object[name] else { return .some(nil) }
            guard case .int(let number) = member, range.contains(number) else { return nil }
            return .some(number)
        }
        guard let timeout = integer("timeoutMs", 100...600_000), let attempts = integer("maxAttempts", 1...100),
              let queue = integer("queueBytes", 1024...1_073_741_824) else { return nil }
        webhook.timeoutMs = timeout ?? webhook.timeoutMs
        webhook.maxAttempts = attempts ?? webhook.maxAttempts
        webhook.queueBytes = queue ?? webhook.queueBytes
        return webhook
    }

    private static func encodeWebhook(_ webhook: Configuration.Webhook) -> JSONValue {
        .object([
            "url": .string(webhook.url), "secret": .string(webhook.secret), "events": .array(webhook.events.map(JSONValue.string)),
            "reactors": .array(webhook.reactors.map(JSONValue.string)), "timeoutMs": .int(webhook.timeoutMs),
            "maxAttempts": .int(webhook.maxAttempts), "queueBytes": .int(webhook.queueBytes),
        ])
    }
}
