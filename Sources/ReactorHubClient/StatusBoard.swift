import ReactorHubLocking

/// The client's status and the streams that follow it.
final class StatusBoard: Sendable {
    private struct Contents {
        var status = HubClientStatus.connecting
        var server: HubServerInfo?
        var nextToken = 0
        var followers: [Int: AsyncStream<HubClientStatus>.Continuation] = [:]
    }

    private let contents = Locked(Contents())

    var status: HubClientStatus { contents.withLock { $0.status } }
    var server: HubServerInfo? { contents.withLock { $0.server } }

    func set(_ status: HubClientStatus) {
        let followers = contents.withLock { contents -> [AsyncStream<HubClientStatus>.Continuation] in
            guard contents.status != .closed, contents.status != status else { return [] }
            contents.status = status
            return Array(contents.followers.values)
        }
        for follower in followers {
            follower.yield(status)
            if status == .closed { follower.finish() }
        }
    }

    func set(server: HubServerInfo) {
        contents.withLock { $0.server = server }
    }

    /// The current status, then each change; finishes once closed.
    func updates() -> AsyncStream<HubClientStatus> {
        let (stream, continuation) = AsyncStream<HubClientStatus>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let (token, current) = contents.withLock { contents -> (Int, HubClientStatus) in
            contents.nextToken += 1
            contents.followers[contents.nextToken] = continuation
            return (contents.nextToken, contents.status)
        }
        continuation.yield(current)
        if current == .closed { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.contents.withLock { _ = $0.followers.removeValue(forKey: token) }
        }
        return stream
    }
}
