import Transport

/// What a patch frame is made of, attached to it so that the transport can have several
/// of them merged (a connection that fell behind then catches up in one write).
struct PatchParts: Sendable {
    var address: String
    var version: Int
    var base: Int
    /// The patch's operations as a JSON array.
    var operations: [UInt8]
}

/// Merges consecutive patch frames of one instance into one frame spanning their versions
/// (`base` → `version`), whose operations are theirs in order: applying it applies each.
struct PatchMerger: OutboundMerger {
    func merge(_ messages: [OutboundMessage]) -> OutboundMessage? {
        var parts: [PatchParts] = []
        parts.reserveCapacity(messages.count)
        for message in messages {
            guard let part = message.attachment as? PatchParts else { return nil }
            if let previous = parts.last, previous.address != part.address || previous.version != part.base {
                return nil
            }
            parts.append(part)
        }
        guard let first = parts.first, let last = parts.last, case .stateUpdate(let stream) = messages[0].kind else { return nil }
        return ServerMessage.patch(
            first.address, version: last.version, base: first.base,
            operations: PatchParts.concatenate(parts.map(\.operations)), stream: stream
        )
    }
}

extension PatchParts {
    /// `[a,b]`, `[c]` → `[a,b,c]`: applying the result applies each patch in turn.
    static func concatenate(_ patches: [[UInt8]]) -> [UInt8] {
        var joined: [UInt8] = [UInt8(ascii: "[")]
        joined.reserveCapacity(patches.reduce(2) { $0 + $1.count })
        for (index, patch) in patches.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            joined.append(contentsOf: patch.dropFirst().dropLast())
        }
        joined.append(UInt8(ascii: "]"))
        return joined
    }
}
