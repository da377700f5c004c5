/// Where the reply to a forwarded action goes: the origin node and the token under which
/// that node keeps the sender (`PendingReplies`). Written in a log entry's `to` as
/// `TOKEN@NODE`; `*` in `to` marks a pulse for every subscriber instead.
struct ReplyAddress: Sendable, Hashable {
    let token: UInt64
    let node: String

    var bytes: [UInt8] { Array("\(token)@\(node)".utf8) }

    init(token: UInt64, node: String) {
        self.token = token
        self.node = node
    }

    init?(bytes: [UInt8]) {
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")),
              let token = UInt64(String(decoding: bytes[..<at], as: UTF8.self))
        else { return nil }
        self.token = token
        self.node = String(decoding: bytes[(at + 1)...], as: UTF8.self)
    }

    /// The `to` of a pulse entry: every subscriber on every node.
    static let everyone: [UInt8] = [UInt8(ascii: "*")]
}
