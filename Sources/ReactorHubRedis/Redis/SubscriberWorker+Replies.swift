import ReactorHubLogging

extension SubscriberWorker {
    /// Acts on one reply read in subscribed mode.
    func handle(_ reply: RedisValue) {
        guard case .array(let parts) = reply, let verb = parts.first?.text else {
            if case .error(let error) = reply {
                subscriber.logger.warning("redis refused a subscription command", metadata: ["error": error.message])
            }
            return  // +PONG while nothing is subscribed
        }
        switch (verb, parts.count) {
        case ("message", 3):
            subscriber.handler(.message(channel: parts[1].text ?? "", payload: parts[2].bytes ?? []))
        case ("pmessage", 4):
            subscriber.handler(.patternMessage(
                pattern: parts[1].text ?? "", channel: parts[2].text ?? "", payload: parts[3].bytes ?? []
            ))
        case ("subscribe", 3):
            confirm(.channel, parts[1].text ?? "")
        case ("psubscribe", 3):
            confirm(.pattern, parts[1].text ?? "")
        default:
            break  // unsubscribe confirmations, ["pong", ""]
        }
    }

    private func confirm(_ kind: SubscriptionKind, _ name: String) {
        if gapToReport {
            unconfirmed[kind]?.remove(name)
            if unconfirmed.values.allSatisfy(\.isEmpty) {
                gapToReport = false
                subscriber.handler(.resubscribed)
            }
        }
        let done = subscriber.state.withLock { state in
            var done: [ConfirmationWaiter] = []
            for index in state.waiters.indices.reversed() where state.waiters[index].kind == kind {
                state.waiters[index].remaining.remove(name)
                if state.waiters[index].remaining.isEmpty {
                    done.append(state.waiters.remove(at: index))
                }
            }
            return done
        }
        for waiter in done {
            waiter.continuation.resume(returning: .success(()))
        }
    }
}
