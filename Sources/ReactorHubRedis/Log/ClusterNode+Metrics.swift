public import ReactorHubMetrics

extension ClusterNode {
    /// The cluster's families for `GET /metrics`.
    public func render(into out: inout Exposition) {
        let owned = replicas.withLock { Array($0.values) }.filter(\.isOwned).count
        out.gauge("reactorhub_cluster_owned_instances", help: "Instances whose lease this node holds.", Double(owned))
        out.counter("reactorhub_cluster_forwarded_actions_total", help: "Actions forwarded to the owner on another node.", metrics.forwarded)
        out.counter("reactorhub_cluster_ownerships_total", help: "Instances this node took ownership of.", metrics.ownerships)
        out.counter("reactorhub_cluster_reply_timeouts_total", help: "Senders answered overloaded for want of the owner's reply.", metrics.replyTimeouts)
        out.gauge("reactorhub_cluster_redis_up", help: "1 while the links to Redis are up.", unavailableReason == nil ? 1 : 0)
        out.family("reactorhub_cluster_redis_master_moves_total", type: "counter", help: "Times the links moved to another Redis master.")
        out.sample("reactorhub_cluster_redis_master_moves_total", directory.moves)
        out.counter("reactorhub_cluster_delivery_silences_total", help: "Times the delivery probe found pub/sub silent.", metrics.deliverySilences)
    }
}
