import Foundation
import ReactorHubAuth
import ReactorHubEngine
import ReactorHubLogging
import ReactorHubWebhooks

extension Configuration {
    /// The daemon's webhooks (`webhooks`), signed with `ReactorHubAuth`'s HMAC-SHA256; nil
    /// when none is configured.
    func webhookService(logger: Logger) -> Webhooks? {
        guard !webhooks.isEmpty else { return nil }
        let receivers = webhooks.compactMap { configured -> ReactorHubWebhooks.Webhook? in
            guard let url = URL(string: configured.url) else { return nil }
            let patterns = configured.reactors.compactMap { try? RightsPattern($0) }
            return ReactorHubWebhooks.Webhook(
                url: url, secret: Array(configured.secret.utf8), events: Set(configured.events.compactMap(InstanceEvent.Kind.init(rawValue:))),
                reactors: { address in patterns.contains { $0.matches(kind: address.kind, id: address.id, subject: nil) } },
                timeout: .milliseconds(configured.timeoutMs), maxAttempts: configured.maxAttempts, queueBytes: configured.queueBytes
            )
        }
        return Webhooks(
            receivers, sign: { message, key in HMACSHA256.mac(message, key: key) }, userAgent: "reactorhub/\(ReactorHubVersion.current)",
            shutdownGrace: .milliseconds(shutdownGraceMs), logger: logger
        )
    }
}
