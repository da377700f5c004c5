import ReactorHubLocking

/// The checksum mismatches the client found: how many, and the streams that follow them.
final class MismatchBoard: Sendable {
    private struct Contents {
        var count = 0
        var closed = false
        var nextToken = 0
        var followers: [Int: AsyncStream<ChecksumMismatch>.Continuation] = [:]
    }

    private let contents = Locked(Contents())

    var count: Int { contents.withLock { $0.count } }

    func report(_ mismatch: ChecksumMismatch) {
        let followers = contents.withLock { contents in
            contents.count += 1
            return Array(contents.followers.values)
        }
        for follower in followers { follower.yield(mismatch) }
    }

    /// Every mismatch from now on; finishes once the client is closed.
    func updates() -> AsyncStream<ChecksumMismatch> {
        let (stream, continuation) = AsyncStream<ChecksumMismatch>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let token = contents.withLock { contents -> Int? in
            guard !contents.closed else { return nil }
            contents.nextToken += 1
            contents.followers[contents.nextToken] = continuation
            return contents.nextToken
        }
        guard let token else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.contents.withLock { _ = $0.followers.removeValue(forKey: token) }
        }
        return stream
    }

    /// The client closed: every stream finishes.
    func close() {
        let followers = contents.withLock { contents in
            contents.closed = true
            defer { contents.followers = [:] }
            return Array(contents.followers.values)
        }
        for follower in followers { follower.finish() }
    }
}
