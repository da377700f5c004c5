package import ReactorHubJSON
package import ReactorHubProtocol

/// Where a reply goes once the record that carries it is committed.
package enum ReplyTarget: Sendable {
    /// A connection of this process, reached directly (the in-process log).
    case connection(ConnectionOutput)
    /// A sender kept under a token by some node (`PendingReplies`), named in the Redis log
    /// as `TOKEN@NODE`; the node that holds the token delivers it.
    case node(ReplyAddress)
}

/// An `ack` or `error` on its way to the sender of an action, through the log.
package struct LoggedReply: Sendable {
    /// The encoded reply, its `ref` included.
    package var message: OutboundMessage
    /// Who gets it; nil: nobody (an accepted action sent without a `ref` is not acked, but
    /// its ack is remembered with its id).
    package var to: ReplyTarget?
    /// The action id the reply answers: a log that outlives the process remembers it with
    /// the entry (the Redis log), so that the next owner answers a resend the same way.
    package var actionID: String?

    package init(message: OutboundMessage, to: ReplyTarget?, actionID: String? = nil) {
        self.message = message
        self.to = to
        self.actionID = actionID
    }
}

/// One entry of an instance's log, in the order its owner produced it (DESIGN.md "one
/// engine"): what every node, the owner's included, delivers to its subscribers once the
/// log has committed it.
package enum LogRecord: Sendable {
    /// A new version: its frame, the state after it (nil when a follower must apply the
    /// frame's operations to its own copy), and the reply of the action that caused it,
    /// which reaches its sender before the frame.
    case patch(PatchFrame, state: JSONValue?, reply: LoggedReply?)
    /// A reply on its own: a refusal, or the ack of an action that changed nothing at once.
    case reply(LoggedReply)
    /// A `pulse` for every subscriber, after the patches before it.
    case pulse(OutboundMessage)
}

/// What one drain of an owner's runtime produced, for its log to commit.
package struct LogBurst: Sendable {
    package var records: [LogRecord]
    /// The version after the burst.
    package var version: Int
    /// The state at `version`.
    package var state: JSONValue

    /// Whether the burst brings a new version.
    package var hasPatch: Bool {
        records.contains { if case .patch = $0 { true } else { false } }
    }
}

/// The refusal of an action whose instance has no owner here any more.
package enum OwnerRefusal {
    /// `overloaded`, worded so that the sender resends (with the same id).
    package static func message(ref: Ref?, codec: any MessageCodec) -> OutboundMessage {
        codec.error(ProtocolError(.overloaded, "this instance has no owner here any more (ownership is moving); retry"), ref: ref)
    }
}
