import ReactorHubJSON

/// A `patch` message as it is sent, with what merging needs to know about it: its
/// versions and where its operations are in the bytes (no copy of them is kept).
///
/// A class: one frame is queued for every subscriber of its instance, and a reference is
/// one word to copy and one count to keep, where the fields were 64 bytes and three.
package final class PatchFrame: Sendable {
    /// The encoded message.
    package let message: OutboundMessage
    /// The version the patch leads to.
    package let version: Int
    /// The version it applies to (`version - 1` unless it spans several).
    package let base: Int
    /// The instance's address, shared by all its frames.
    package let address: String
    /// The checksum of the state at `version`, when the frame carries one (PROTOCOL.md
    /// "Checksums (opt-in)").
    package let sum: String?
    /// Where the operations array starts in `message`; it ends one byte before the end.
    private let operationsStart: Int

    /// Writes `{"type":"patch","reactor":…,"version":…[,"base":…][,"sum":…],"patch":OPERATIONS}`.
    package init(
        address: String, version: Int, base: Int, operations: some Collection<UInt8>, sum: String? = nil,
        headroom: Int = OutboundMessage.standardHeadroom
    ) {
        self.version = version
        self.base = base
        self.address = address
        self.sum = sum
        // Sized first and written in place: one a version, at every action.
        let reactor = QuotedText(address)
        let quotedSum = sum.map(QuotedText.init)
        let prefix: StaticString = #"{"type":"patch","reactor":"#
        let hasBase = base != version - 1
        let start = prefix.utf8CodeUnitCount + reactor.count
            + #","version":"#.utf8.count + PlacedBytes.digits(version)
            + (hasBase ? #","base":"#.utf8.count + PlacedBytes.digits(base) : 0)
            + (quotedSum.map { #","sum":"#.utf8.count + $0.count } ?? 0)
            + #","patch":"#.utf8.count
        let count = start + operations.count + 1
        self.operationsStart = start
        self.message = PlacedBytes.message(count: count, headroom: headroom, label: .patch(version: version)) { out in
            out.append(prefix)
            out.append(reactor)
            out.append(#","version":"#)
            out.append(version)
            if hasBase {
                out.append(#","base":"#)
                out.append(base)
            }
            if let quotedSum {
                out.append(#","sum":"#)
                out.append(quotedSum)
            }
            out.append(#","patch":"#)
            out.append(operations)
            out.append("}")
        }
    }

    /// The same frame carrying `sum` (a copy of its operations).
    package func summed(_ sum: String) -> PatchFrame {
        withOperations { operations in
            PatchFrame(address: address, version: version, base: base, operations: operations, sum: sum, headroom: message.headroom)
        }
    }

    /// The operations, as a JSON array.
    package func withOperations<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try message.withBytes { bytes in
            try body(UnsafeRawBufferPointer(rebasing: bytes[operationsStart..<(bytes.count - 1)]))
        }
    }

    /// Size of the operations array in bytes.
    package var operationsCount: Int { message.count - 1 - operationsStart }

    /// Whether `next` (of the same instance) continues this frame.
    package func isFollowed(by next: PatchFrame) -> Bool {
        next.base == version
    }

    /// One frame spanning `frames` (consecutive, of one instance): `[a,b]`, `[c]` →
    /// `[a,b,c]`, so that applying it applies each in turn. It carries the last frame's
    /// `sum`, the checksum of the version it leads to.
    package static func merge(_ frames: [PatchFrame], headroom: Int = OutboundMessage.standardHeadroom) -> PatchFrame {
        merge(frames[...], headroom: headroom)
    }

    /// `merge` of a run of frames held in a larger array. A slice, not any collection:
    /// iterating a collection through its witness allocated a coroutine frame per element
    /// read, about four allocations per action at saturation (the runs are short and many).
    package static func merge(_ frames: ArraySlice<PatchFrame>, headroom: Int = OutboundMessage.standardHeadroom) -> PatchFrame {
        precondition(!frames.isEmpty)
        if frames.count == 1 { return frames.first! }
        var joined: [UInt8] = [UInt8(ascii: "[")]
        joined.reserveCapacity(frames.reduce(2) { $0 + $1.operationsCount })
        for frame in frames {
            frame.withOperations { operations in
                let inner = operations.dropFirst().dropLast()
                guard !inner.isEmpty else { return }
                if joined.count > 1 { joined.append(UInt8(ascii: ",")) }
                joined.append(contentsOf: inner)
            }
        }
        joined.append(UInt8(ascii: "]"))
        let first = frames.first!
        let last = frames.last!
        return PatchFrame(address: first.address, version: last.version, base: first.base, operations: joined, sum: last.sum, headroom: headroom)
    }
}
