/// The slow-reader thresholds, all derived here from `limits.outboundQueueBytes`.
package struct DeliveryLimits: Sendable, Equatable {
    /// A backlog past this, on a connection whose socket is full, sheds its updates.
    package let queueBytes: Int

    package init(outboundQueueBytes: Int) {
        self.queueBytes = max(outboundQueueBytes, 1)
    }

    /// A backlog of replies past this closes the connection with 1013.
    package var overloadBytes: Int { queueBytes * 4 }

    /// The largest frame that merging (of a burst, or of a backlog) produces: a quarter of
    /// the queue, so that one merged frame is never a backlog by itself.
    package var mergedFrameBytes: Int { max(queueBytes / 4, 1024) }

    /// The most frames merged into one.
    package var mergedFrameCount: Int { 256 }
}
