import ReactorHubMetrics

/// What the hub counts, each where its policy lives (routing, instances, delivery); the
/// scrape (`Hub+Metrics`) adds what it reads from state at that moment.
public final class HubMetrics: Sendable {
    /// The close codes of PROTOCOL.md, the label set of closed connections.
    static let closeCodes = ["1000", "1001", "1003", "1006", "1007", "1008", "1009", "1011", "1013"]
    /// The error codes of PROTOCOL.md.
    static let errorCodes = [
        "bad_json", "bad_request", "unknown_reactor", "invalid_reactor", "unknown_action", "invalid_action",
        "not_joined", "forbidden", "unauthenticated", "rate_limited", "too_many_joins", "overloaded", "internal",
    ]
    /// The refusal reasons of tokens.
    static let authReasons = ["expired", "not yet valid", "bad signature", "malformed", "audience", "issuer", "algorithm", "revoked"]

    let connectionsOpened = Counter()
    let connectionsClosed = LabeledCounter(label: "code", values: closeCodes)
    /// Actions by kind (the registered kinds: a bounded set) and result.
    let actions: [String: LabeledCounter]
    let actionSeconds = Histogram.latency()
    let snapshots = LabeledCounter(label: "reason", values: ["join", "resync", "reset"])
    let resumes = LabeledCounter(label: "result", values: ["resumed", "snapshot"])
    let slowConsumers = LabeledCounter(label: "action", values: ["dropped", "closed"])
    let errors = LabeledCounter(label: "code", values: errorCodes)
    let authFailures = LabeledCounter(label: "reason", values: authReasons)

    init(kinds: [String]) {
        actions = Dictionary(uniqueKeysWithValues: kinds.map { ($0, LabeledCounter(label: "result", values: ["accepted", "refused", "duplicate"])) })
    }

    /// Counts an action of `kind` that was accepted, refused or a duplicate.
    func action(_ kind: String, _ result: String) {
        actions[kind]?.increment(result)
    }
}
