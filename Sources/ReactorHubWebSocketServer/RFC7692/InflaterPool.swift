import ReactorHubDeflate

/// The inflaters of a service thread, lent to connections while they receive a compressed
/// message and taken back at its end: with `client_no_context_takeover` a connection
/// holds no inflate state between messages, so the memory of inflating is that of the
/// messages under way, not of the connections (DeflateNegotiation).
///
/// Safety of `@unchecked Sendable`: used only on its service thread (ServerCore).
final class InflaterPool: @unchecked Sendable {
    /// Idle inflaters kept for reuse at most; the others are freed when given back.
    let keep: Int
    private var idle: [MessageInflater] = []

    init(keep: Int = 4) {
        self.keep = keep
    }

    /// An inflater for windows up to `windowBits`, reset.
    func take(windowBits: Int) -> MessageInflater {
        if let index = idle.lastIndex(where: { $0.windowBits == MessageInflater.windowBits(for: Int32(windowBits)) }) {
            return idle.remove(at: index)
        }
        return MessageInflater(windowBits: Int32(windowBits))
    }

    /// Takes `inflater` back (reset, whatever state it was left in).
    func give(_ inflater: MessageInflater) {
        inflater.reset()
        if idle.count < keep { idle.append(inflater) }
    }

    /// Inflaters idle now (tests).
    var idleCount: Int { idle.count }
}
