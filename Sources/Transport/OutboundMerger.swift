/// Merges consecutive state updates of one stream that are waiting in one connection's
/// queue into a single message, so that a connection that fell behind catches up with
/// one write instead of many (DESIGN.md: "queued patches merged").
///
/// The transport knows bytes, not patches: it asks the layer above, which put what it
/// needs in each message's `attachment`. Called on the service thread; must be quick.
public protocol OutboundMerger: Sendable {
    /// One message equivalent to `messages` (two or more `.stateUpdate` messages of the
    /// same stream, in order), or nil to send them one by one.
    func merge(_ messages: [OutboundMessage]) -> OutboundMessage?
}
