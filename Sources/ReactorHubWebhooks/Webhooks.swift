import Foundation
public import ReactorHubEngine
public import ReactorHubProtocol
public import ReactorHubLifecycle
public import ReactorHubLogging
public import ReactorHubMetrics
import ReactorHubLocking

/// The daemon's webhooks (API.md "Webhooks"): the engine's instance events, posted to the
/// configured receivers, signed, at least once, in order per reactor and receiver. It is
/// the engine's `InstanceEventSink` (an event is queued at once, never waiting on a
/// receiver) and a service: at shutdown, what is queued gets `shutdownGrace` to leave.
public final class Webhooks: InstanceEventSink, Service {
    private let senders: [WebhookSender]
    private let shutdownGrace: Duration
    private let logger: Logger
    private let stopRequested = Latch()

    /// Webhooks to `receivers`, signed with `sign`, sent as `userAgent`.
    public init(_ receivers: [Webhook], sign: @escaping WebhookSigner, userAgent: String, shutdownGrace: Duration, logger: Logger) {
        self.senders = receivers.enumerated().map { index, webhook in
            WebhookSender(index: index, webhook: webhook, sign: sign, userAgent: userAgent, logger: logger)
        }
        self.shutdownGrace = shutdownGrace
        self.logger = logger
    }

    // MARK: InstanceEventSink

    public func wants(_ kind: InstanceEvent.Kind, in address: ReactorAddress) -> Bool {
        senders.contains { $0.webhook.hears(kind, in: address) }
    }

    public func emit(_ event: InstanceEvent) {
        let hearing = senders.filter { $0.webhook.hears(event.kind, in: event.address) }
        guard !hearing.isEmpty else { return }
        let id = UUID().uuidString.lowercased()
        let delivery = WebhookDelivery(id: id, reactor: event.address.description, body: WebhookBody.make(event, id: id, time: Date()))
        for sender in hearing {
            sender.enqueue(delivery)
        }
    }

    // MARK: Service

    public var name: String { "webhooks" }

    public func run() async throws {
        await stopRequested.wait()
        for sender in senders { sender.stop() }
        for sender in senders where await !sender.drained.wait(timeout: shutdownGrace) {
            logger.warning("shutdown grace elapsed with webhook events not delivered", metadata: ["webhook": String(sender.index)])
        }
        for sender in senders { sender.release() }
    }

    public func triggerGracefulShutdown() {
        stopRequested.open()
    }

    // MARK: Metrics

    /// The webhooks' families for `GET /metrics`, by receiver index.
    public func render(into out: inout Exposition) {
        out.family("reactorhub_webhook_attempts_total", type: "counter", help: "Webhook delivery attempts, by receiver and outcome (delivered: 2xx; failed).")
        for sender in senders {
            for (outcome, count) in sender.metrics.attempts.counts where outcome != "other" {
                out.sample("reactorhub_webhook_attempts_total", count, labels: [("webhook", String(sender.index)), ("outcome", outcome)])
            }
        }
        out.family("reactorhub_webhook_retries_total", type: "counter", help: "Webhook attempts after an event's first, by receiver.")
        for sender in senders {
            out.sample("reactorhub_webhook_retries_total", sender.metrics.retries.count, labels: [("webhook", String(sender.index))])
        }
        out.family("reactorhub_webhook_dropped_total", type: "counter", help: "Webhook events dropped, by receiver and reason (attempts: every attempt failed; queue: the queue was full).")
        for sender in senders {
            for (reason, count) in sender.metrics.dropped.counts where reason != "other" {
                out.sample("reactorhub_webhook_dropped_total", count, labels: [("webhook", String(sender.index)), ("reason", reason)])
            }
        }
        out.family("reactorhub_webhook_queue_bytes", type: "gauge", help: "Bytes of webhook events waiting, by receiver.")
        for sender in senders {
            out.sample("reactorhub_webhook_queue_bytes", sender.metrics.queueBytes.load(ordering: .relaxed), labels: [("webhook", String(sender.index))])
        }
    }
}
