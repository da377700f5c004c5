import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ReactorHubLocking
import ReactorHubLogging
import ReactorHubMetrics

/// Delivers one receiver's queue (API.md "Webhooks"): a few deliveries at once, never two
/// of one reactor, each retried with backoff and jitter until it succeeds or has had its
/// attempts. Its HTTP client is URLSession (FoundationNetworking, on libcurl), with a
/// session of its own, so that a receiver that is slow or never answers holds only its own
/// queue: events are queued without waiting, and nothing else shares its connections.
///
/// Safety of `@unchecked Sendable`: `inFlight`, `wake` and `stopping` are touched only on
/// `worker`, a serial queue; the queue is behind its lock; the rest is immutable or atomic.
final class WebhookSender: @unchecked Sendable {
    /// Deliveries of different reactors sent at once.
    static let concurrency = 4

    let index: Int
    let webhook: Webhook
    let metrics: WebhookMetrics
    private let sign: WebhookSigner
    private let userAgent: String
    private let logger: Logger
    private let queue: Locked<WebhookQueue>
    private let worker: DispatchQueue
    private let session: URLSession
    /// Opens once stopping and nothing is left to send.
    let drained = Latch()
    private var inFlight = 0
    private var wake: DispatchWorkItem?
    private var stopping = false

    init(index: Int, webhook: Webhook, sign: @escaping WebhookSigner, userAgent: String, logger: Logger) {
        self.index = index
        self.webhook = webhook
        self.sign = sign
        self.userAgent = userAgent
        self.logger = logger
        self.metrics = WebhookMetrics()
        self.queue = Locked(WebhookQueue(limitBytes: webhook.queueBytes, maxAttempts: webhook.maxAttempts))
        self.worker = DispatchQueue(label: "reactorhub.webhook.\(index)")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = Double(webhook.timeout.components.seconds) + Double(webhook.timeout.components.attoseconds) / 1e18
        configuration.httpMaximumConnectionsPerHost = Self.concurrency
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.connectionProxyDictionary = [:]
        self.session = URLSession(configuration: configuration)
    }

    /// Queues a delivery (any thread; never waits on the receiver).
    func enqueue(_ delivery: WebhookDelivery) {
        let (dropped, bytes) = queue.withLock { queue in (queue.append(delivery), queue.bytes) }
        metrics.queueBytes.store(bytes, ordering: .relaxed)
        if dropped > 0 {
            metrics.dropped.increment("queue", by: dropped)
            logger.warning("webhook queue full: oldest events dropped", metadata: [
                "webhook": String(index), "dropped": String(dropped), "limit": String(webhook.queueBytes),
            ])
        }
        worker.async { self.pump() }
    }

    /// Sends what is ready, and arranges to be woken for the next retry (worker).
    private func pump() {
        while inFlight < Self.concurrency, let delivery = queue.withLock({ $0.next(now: .now) }) {
            inFlight += 1
            send(delivery)
        }
        wake?.cancel()
        wake = nil
        let (retryAt, left) = queue.withLock { ($0.nextRetry, $0.count) }
        if stopping && inFlight == 0 && (left == 0 || retryAt != nil) {
            drained.open()
        }
        if let retryAt {
            let item = DispatchWorkItem { [weak self] in self?.pump() }
            wake = item
            let delay = ContinuousClock.now.duration(to: retryAt)
            worker.asyncAfter(deadline: .now() + .milliseconds(max(0, Int(delay / .milliseconds(1)) + 1)), execute: item)
        }
    }

    private func send(_ delivery: WebhookDelivery) {
        var request = URLRequest(url: webhook.url)
        request.httpMethod = "POST"
        request.httpBody = Data(delivery.body)
        request.timeoutInterval = session.configuration.timeoutIntervalForRequest
        let timestamp = Int(Date().timeIntervalSince1970)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue(delivery.id, forHTTPHeaderField: "X-ReactorHub-Id")
        request.setValue(String(timestamp), forHTTPHeaderField: "X-ReactorHub-Timestamp")
        if let signature = WebhookSignature.header(body: delivery.body, timestamp: timestamp, secret: webhook.secret, sign: sign) {
            request.setValue(signature, forHTTPHeaderField: "X-ReactorHub-Signature")
        }
        if delivery.attempts > 0 { metrics.retries.increment() }
        session.dataTask(with: request) { [self] _, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode
            worker.async { self.settle(delivery, status: status, error: error) }
        }.resume()
    }

    private func settle(_ delivery: WebhookDelivery, status: Int?, error: (any Error)?) {
        inFlight -= 1
        let delivered = status.map { (200..<300).contains($0) } ?? false
        let (settled, bytes) = queue.withLock { queue in
            let settled = queue.finish(reactor: delivery.reactor, delivered: delivered, now: .now) { retry in
                WebhookRetry.delay(beforeRetry: retry, random: Double.random(in: 0...1))
            }
            return (settled, queue.bytes)
        }
        metrics.queueBytes.store(bytes, ordering: .relaxed)
        // Counted once the queue shows it settled: a reader that sees the count sees the bytes.
        metrics.attempts.increment(delivered ? "delivered" : "failed")
        if !delivered {
            let outcome = status.map { "status \($0)" } ?? error.map { "\($0.localizedDescription)" } ?? "no answer"
            switch settled {
            case .gaveUp:
                metrics.dropped.increment("attempts")
                logger.warning("webhook event dropped after its last attempt", metadata: [
                    "webhook": String(index), "id": delivery.id, "reactor": delivery.reactor, "attempts": String(delivery.attempts + 1), "outcome": outcome,
                ])
            case .retry(let at):
                logger.info("webhook delivery failed; retrying", metadata: [
                    "webhook": String(index), "id": delivery.id, "attempt": String(delivery.attempts + 1), "outcome": outcome,
                    "retryInMs": String(Int(ContinuousClock.now.duration(to: at) / .milliseconds(1))),
                ])
            case .delivered:
                break
            }
        }
        pump()
    }

    /// From now on, opens `drained` once nothing is being sent and nothing is ready to be.
    func stop() {
        worker.async {
            self.stopping = true
            self.pump()
        }
    }

    /// Cancels what is still being sent and releases the session.
    func release() {
        session.invalidateAndCancel()
    }
}
