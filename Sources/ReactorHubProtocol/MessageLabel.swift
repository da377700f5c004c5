/// What an outbound message is, for a transport that frames each kind its own way: an
/// event stream (API.md "The event stream") names each event and gives it the
/// `EPOCH:VERSION` a client holds once it has applied it. The codec sets it when it writes
/// the message; a WebSocket ignores it.
public enum MessageLabel: Sendable, Equatable {
    /// A reply or a message an event stream does not carry (`hello`, `ack`, `pong`, `left`).
    case reply
    /// A refusal (`error`).
    case error
    /// A full state at `version` of the instance's history `epoch`.
    case snapshot(epoch: String, version: Int)
    /// The client's `version` of `epoch` still holds: the missed patches follow.
    case resumed(epoch: String, version: Int)
    /// A patch leading to `version`.
    case patch(version: Int)
    /// A pulse fired at `version`.
    case pulse(version: Int)
    /// A presence change (not versioned).
    case presence
}
