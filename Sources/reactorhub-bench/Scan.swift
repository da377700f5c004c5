import CBenchSys
import Glibc

/// A byte string searched for with `memmem`, allocated once.
struct Needle: @unchecked Sendable {
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ text: StaticString) {
        count = text.utf8CodeUnitCount
        bytes = .allocate(capacity: count)
        bytes.initialize(from: text.utf8Start, count: count)
    }

    /// The offset of the first occurrence in `base[from..<end]`, or nil.
    @inline(__always)
    func find(in base: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int? {
        guard end - from >= count else { return nil }
        guard let hit = memmem(base + from, end - from, bytes, count) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
    }
}

enum Needles {
    static let typePrefix = Needle(#"{"type":""#)
    static let version = Needle(#""version":"#)
    static let base = Needle(#""base":"#)
    static let patch = Needle(#""patch":"#)
    static let path = Needle(#""path":"/s"#)
    static let value = Needle(#""value":"#)
    static let t = Needle(#""t":"#)
    static let seq = Needle(#""seq":"#)
    static let objectWithT = Needle(#"{"t":"#)
    static let code = Needle(#""code":"#)
    static let ref = Needle(#""ref":"#)
}

/// The kind of a server message, from its first bytes.
enum MessageType {
    case hello, snapshot, patch, pulse, ack, authed, error, pong, resumed, left, other
}

/// One timestamped write found in a frame: sender `sender` wrote sequence number `seq`
/// at monotonic time `t` (0 when the frame did not carry it).
struct OpSample {
    var sender: Int
    var seq: Int
    var t: UInt64
}

enum Scan {
    /// Reads the `"type"` of a message that starts with `{"type":"…"`, as the daemon writes.
    @inline(__always)
    static func messageType(_ p: UnsafePointer<UInt8>, _ n: Int) -> MessageType {
        guard n > 12, memcmp(p, Needles.typePrefix.bytes, Needles.typePrefix.count) == 0 else { return .other }
        let first = p[9]
        let second = p[10]
        switch first {
        case UInt8(ascii: "p"):
            if second == UInt8(ascii: "a") { return .patch }
            if second == UInt8(ascii: "u") { return .pulse }
            if second == UInt8(ascii: "o") { return .pong }
        case UInt8(ascii: "s"): return .snapshot
        case UInt8(ascii: "h"): return .hello
        case UInt8(ascii: "a"): return second == UInt8(ascii: "u") ? .authed : .ack
        case UInt8(ascii: "e"): return .error
        case UInt8(ascii: "r"): return .resumed
        case UInt8(ascii: "l"): return .left
        default: break
        }
        return .other
    }

    /// A non-negative decimal integer at `at`; returns it and the offset after it.
    @inline(__always)
    static func integer(_ p: UnsafePointer<UInt8>, at start: Int, end: Int) -> (value: Int, next: Int)? {
        var index = start
        var value = 0
        while index < end {
            let digit = Int(p[index]) &- 48
            if digit < 0 || digit > 9 { break }
            value = value &* 10 &+ digit
            index += 1
        }
        return index > start ? (value, index) : nil
    }

    /// The integer that follows `needle` in `p[from..<end]`.
    @inline(__always)
    static func integer(after needle: Needle, _ p: UnsafePointer<UInt8>, from: Int, to end: Int) -> (value: Int, next: Int)? {
        guard let hit = needle.find(in: p, from: from, to: end) else { return nil }
        return integer(p, at: hit + needle.count, end: end)
    }

    /// Version, base and the offset of `"patch":` of a patch frame.
    @inline(__always)
    static func patchHeader(_ p: UnsafePointer<UInt8>, _ n: Int) -> (version: Int, base: Int, ops: Int)? {
        guard let ops = Needles.patch.find(in: p, from: 0, to: n),
              let version = integer(after: Needles.version, p, from: 0, to: ops) else { return nil }
        let base = integer(after: Needles.base, p, from: version.next, to: ops)?.value
            ?? integer(after: Needles.base, p, from: 0, to: ops)?.value
            ?? version.value - 1
        return (version.value, base, ops)
    }

    /// Every `/sK` write in `p[from..<n]`: whole values (`"path":"/sK","value":{"t":…,"seq":…}`,
    /// the action itself or an add/replace of the member) and leaf writes
    /// (`"path":"/sK/t","value":…` followed by `"path":"/sK/seq","value":…`).
    static func samples(_ p: UnsafePointer<UInt8>, _ n: Int, from start: Int, into output: inout [OpSample]) {
        output.removeAll(keepingCapacity: true)
        var position = start
        var pending = OpSample(sender: -1, seq: -1, t: 0)
        while let hit = Needles.path.find(in: p, from: position, to: n) {
            guard let sender = integer(p, at: hit + Needles.path.count, end: n) else {
                position = hit + Needles.path.count
                continue
            }
            let after = sender.next
            position = after
            guard after < n else { break }
            if p[after] == UInt8(ascii: "\"") {
                // A whole value: {"t":…,"seq":…,"pad":…}
                let next = Needles.path.find(in: p, from: after, to: n) ?? n
                guard let seq = integer(after: Needles.seq, p, from: after, to: next) else { continue }
                let t = integer(after: Needles.t, p, from: after, to: next)?.value ?? 0
                output.append(OpSample(sender: sender.value, seq: seq.value, t: UInt64(t)))
                position = seq.next
            } else if p[after] == UInt8(ascii: "/"), after + 2 < n {
                // A leaf: /sK/t or /sK/seq
                guard let value = integer(after: Needles.value, p, from: after, to: n) else { continue }
                position = value.next
                if pending.sender != sender.value {
                    if pending.seq >= 0 { output.append(pending) }
                    pending = OpSample(sender: sender.value, seq: -1, t: 0)
                }
                if p[after + 1] == UInt8(ascii: "t") && p[after + 2] == UInt8(ascii: "\"") {
                    pending.t = UInt64(value.value)
                } else if p[after + 1] == UInt8(ascii: "s") {
                    if pending.seq >= 0 { output.append(pending); pending.t = 0 }
                    pending.seq = value.value
                }
                if pending.seq >= 0 && pending.t != 0 {
                    output.append(pending)
                    pending = OpSample(sender: -1, seq: -1, t: 0)
                }
            }
        }
        if pending.seq >= 0 { output.append(pending) }
    }

    /// The `"sK":{"t":…,"seq":…}` members of a snapshot's state.
    static func snapshotSamples(_ p: UnsafePointer<UInt8>, _ n: Int, into output: inout [OpSample]) {
        output.removeAll(keepingCapacity: true)
        var position = 0
        while let hit = Needles.objectWithT.find(in: p, from: position, to: n) {
            position = hit + Needles.objectWithT.count
            // Walk back over `"sK":`
            var index = hit - 1
            guard index > 3, p[index] == UInt8(ascii: ":"), p[index - 1] == UInt8(ascii: "\"") else { continue }
            index -= 2
            var sender = 0
            var scale = 1
            var digits = 0
            while index > 0, p[index] >= 48, p[index] <= 57 {
                sender += Int(p[index] - 48) * scale
                scale *= 10
                digits += 1
                index -= 1
            }
            guard digits > 0, p[index] == UInt8(ascii: "s") else { continue }
            guard let t = integer(p, at: position, end: n),
                  let seq = integer(after: Needles.seq, p, from: t.next, to: min(n, t.next + 40)) else { continue }
            output.append(OpSample(sender: sender, seq: seq.value, t: UInt64(t.value)))
        }
    }
}
