package import ReactorHubProtocol

/// One message on its way to one connection, as the delivery policy sees it
/// (PROTOCOL.md "Ordering and delivery", "Slow clients").
package enum Outgoing: Sendable {
    /// A reply (`hello`, `ack`, `error`, `pong`, `left`): never dropped.
    case reply(OutboundMessage)
    /// A full state of a stream (a join's `snapshot` or `resumed`, a resync): never
    /// dropped, and ends the stream's lag.
    case snapshot(StreamID, OutboundMessage)
    /// A state update: merged with the next ones when the reader fell behind, dropped
    /// (and owed a resync) when it stopped reading.
    case patch(StreamID, PatchFrame)
    /// A pulse: dropped when the reader stopped reading (one-shot by nature).
    case pulse(StreamID, OutboundMessage)
    /// A presence broadcast: dropped when the reader stopped reading, which then gets the
    /// presence map again with its resync snapshot.
    case presence(StreamID, OutboundMessage)

    package var message: OutboundMessage {
        switch self {
        case .reply(let message), .snapshot(_, let message), .pulse(_, let message), .presence(_, let message): message
        case .patch(_, let frame): frame.message
        }
    }

    package var byteCount: Int { message.count }

    /// The stream that owes a resync when this is shed: patches and presence are state
    /// the reader must get again; a pulse is one-shot.
    package var laggingStream: StreamID? {
        switch self {
        case .patch(let stream, _), .presence(let stream, _): stream
        case .reply, .snapshot, .pulse: nil
        }
    }

    /// Patches, pulses and presence may be shed for a reader that stopped reading.
    package var isDroppable: Bool {
        switch self {
        case .patch, .pulse, .presence: true
        case .reply, .snapshot: false
        }
    }
}
