/// Where the reply to a forwarded action goes: the origin node and the token under which
/// that node keeps the sender (`PendingReplies`). Written in a log entry's `to` as
/// `TOKEN@NODE`; `*` in `to` marks a pulse for every subscriber instead.
package struct ReplyAddress: Sendable, Hashable {
    package let token: UInt64
    package let node: String

    package var bytes: [UInt8] { Array("\(token)@\(node)".utf8) }

    package init(token: UInt64, node: String) {
        self.token = token
        self.node = node
    }

    package init?(bytes: [UInt8]) {
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")),
              let token = UInt64(String(decoding: bytes[..<at], as: UTF8.self))
        else { return nil }
        self.token = token
        self.node = String(decoding: bytes[(at + 1)...], as: UTF8.self)
    }

    /// The `to` of a pulse entry: every subscriber on every node.
    package static let everyone: [UInt8] = [UInt8(ascii: "*")]
}
