package import ReactorHubMetrics

/// What the hub counts, each where its policy lives (routing, instances, delivery); the
/// scrape (`Hub+Metrics`) adds what it reads from state at that moment.
public final class HubMetrics: Sendable {
    /// The close codes of PROTOCOL.md, the label set of closed connections.
    package static let closeCodes = ["1000", "1001", "1003", "1006", "1007", "1008", "1009", "1011", "1013"]
    /// The error codes of PROTOCOL.md.
    package static let errorCodes = [
        "bad_json", "bad_request", "unknown_reactor", "invalid_reactor", "unknown_action", "invalid_action",
        "not_joined", "forbidden", "unauthenticated", "rate_limited", "too_many_joins", "overloaded", "internal",
    ]
    /// The refusal reasons of tokens.
    package static let authReasons = ["expired", "not yet valid", "bad signature", "malformed", "audience", "issuer", "algorithm", "revoked"]

    package let connectionsOpened = Counter()
    package let connectionsClosed = LabeledCounter(label: "code", values: closeCodes)
    /// Actions by kind (the registered kinds: a bounded set) and result.
    package let actions: [String: LabeledCounter]
    package let actionSeconds = Histogram.latency()
    package let snapshots = LabeledCounter(label: "reason", values: ["join", "resync", "reset"])
    package let resumes = LabeledCounter(label: "result", values: ["resumed", "snapshot"])
    package let slowConsumers = LabeledCounter(label: "action", values: ["dropped", "closed"])
    package let errors = LabeledCounter(label: "code", values: errorCodes)
    package let authFailures = LabeledCounter(label: "reason", values: authReasons)

    package init(kinds: [String]) {
        actions = Dictionary(uniqueKeysWithValues: kinds.map { ($0, LabeledCounter(label: "result", values: ["accepted", "refused", "duplicate"])) })
    }

    /// Counts an action of `kind` that was accepted, refused or a duplicate.
    package func action(_ kind: String, _ result: String) {
        actions[kind]?.increment(result)
    }
}
