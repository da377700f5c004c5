import Synchronization

/// The links' health: readiness, the delivery probe, and replicas resynced from the logs
/// after the pub/sub link came back.
extension ClusterNode {
    /// Why the node cannot serve now (`/readyz`), or nil: no master named (the sentinels
    /// that do not answer, or the master name they do not know), a link down, delivery
    /// silent, or replicas still repairing from the logs.
    public var unavailableReason: String? {
        if let missing = directory.missingReason {
            return "cluster: no Redis master: \(missing)"
        }
        guard client.isConnected, writer.isConnected, subscriber.isConnected, inboxReader.isReading else {
            return "cluster link down"
        }
        if let silent = probe.silentReason {
            return silent
        }
        let left = resyncing.load(ordering: .relaxed)
        return left > 0 ? "cluster resyncing \(left) replicas from the logs after the pub/sub link came back" : nil
    }

    /// Runs the delivery probe; when it finds delivery silent, every link is rebuilt (the
    /// pub/sub link's return resyncs the replicas).
    func proveDelivery() async {
        // Wanted from now on: a link that is down subscribes it on reconnection.
        try? await subscriber.subscribe([probe.channel])
        await probe.run { [self] in
            metrics.deliverySilences.increment()
            subscriber.reconnect()
            client.reconnect()
            if writer !== client { writer.reconnect() }
            inboxReader.reconnect()
        }
    }

    /// Every replica repairs from its log; readiness waits until each one has.
    func resync(_ replicas: [any ClusterReplica]) {
        resyncing.add(replicas.count, ordering: .relaxed)
        for replica in replicas {
            replica.linkRecovered { [self] in
                resyncing.subtract(1, ordering: .relaxed)
            }
        }
    }
}
