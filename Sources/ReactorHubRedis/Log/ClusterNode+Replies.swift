import ReactorHubEngine
import ReactorHubProtocol

/// The senders on this node waiting for their action's reply, wherever the owner is.
extension ClusterNode {
    /// Keeps a sender until its reply comes; returns its token.
    func expectReply(_ entry: PendingReplies.Entry) -> UInt64 {
        pending.withLock { $0.add(entry) }
    }

    /// Takes the sender of `token` (its reply is being delivered).
    func takeReply(_ token: UInt64) -> PendingReplies.Entry? {
        pending.withLock { $0.take(token) }
    }

    /// Sends `reply` to the sender `to`: here, or through its node's inbox.
    /// `bounced`: the instance this node refused the action for, not owning it.
    func answer(_ to: ReplyAddress, _ reply: [UInt8], bounced: String? = nil) {
        if to.node == id { return deliverReply(to.token, reply) }
        Task {
            _ = try? await inbox.post(to: to.node, instance: "", payload: InboxMessage(replyTo: to, reply: reply, bounced: bounced).bytes)
        }
    }

    func deliverReply(_ token: UInt64, _ reply: [UInt8]) {
        guard let sender = takeReply(token), let delivery = delivery.withLock({ $0 }) else { return }
        delivery.send(.reply(codec.message(reply)), to: sender.output)
    }

    /// Notes that the action of `token` went to `owner`'s inbox.
    func posted(_ token: UInt64, to owner: String) {
        pending.withLock { $0.posted(token, to: owner) }
    }

    func expireReplies() {
        var owners: [String: String] = [:]
        for replica in replicas.withLock({ Array($0.values) }) {
            if let holder = replica.knownHolder { owners[replica.addressText] = holder }
        }
        let late = pending.withLock { $0.expire(now: .now, owners: owners) }
        guard !late.isEmpty, let delivery = delivery.withLock({ $0 }) else { return }
        for sender in late {
            metrics.replyTimeouts.increment()
            let error = ProtocolError(.overloaded, "no reply from the owner of \(sender.address) in time (it may be failing over); retry with the same action id")
            delivery.send(.reply(codec.error(error, ref: sender.ref)), to: sender.output)
        }
    }

    /// The master moved: the actions this node forwarded may have been lost with the old
    /// master's inbox entries (delivery is at most once), so their senders wait at most
    /// `RedisLog.holdInterval` × 3 more. An owner whose commit of one waits for `WAIT` says
    /// so every `holdInterval`, which extends the wait; any other reply comes well before.
    func shortenForwardedReplies() {
        let deadline = ContinuousClock.now + RedisLog.holdInterval * 3
        pending.withLock { $0.shortenForwarded(to: deadline) }
    }

    /// Tells the senders of `targets` to keep waiting: their action's commit is written and
    /// waits for `WAIT` (`cluster.minReplicas`), so their reply will come.
    func holdReplies(_ targets: [ReplyAddress]) {
        for (node, addresses) in Dictionary(grouping: targets, by: \.node) {
            let tokens = addresses.map(\.token)
            if node == id {
                holdLocal(tokens)
                continue
            }
            Task {
                _ = try? await inbox.post(to: node, instance: "", payload: InboxMessage.hold(tokens: tokens).bytes)
            }
        }
    }

    /// Pushes the deadline of this node's senders `tokens` back by a reply timeout.
    func holdLocal(_ tokens: [UInt64]) {
        let deadline = ContinuousClock.now + replyTimeout
        pending.withLock { pending in
            for token in tokens {
                pending.extend(token, until: deadline)
            }
        }
    }
}
