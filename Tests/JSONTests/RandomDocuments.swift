import JSON

/// SplitMix64: a small, fast generator whose sequence depends only on its seed, so
/// every run of the property tests sees the same documents.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Random JSON documents and random edits of them: nested objects and arrays, keys with
/// `/`, `~` and non-ASCII text, integers and doubles, strings that need escaping.
/// An edited document shares its untouched subtrees with the original (copy-on-write),
/// as a reactor's successive states do.
struct RandomDocuments {
    var generator: SeededGenerator

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    static let keys = [
        "a", "b", "c", "id", "title", "done", "items", "a/b", "~", "~1", "~0/", "x~y/z", "", "0", "1", "-",
        "키", "ü", "🎉 party", "quote\"d", "back\\slash", "new\nline", "tab\t", "\u{1}",
    ]
    static let strings = [
        "", "hello", "line\nbreak", "tab\there", "quote\"", "back\\slash", "ctrl\u{01}\u{1F}\u{7F}", "é", "한국어 텍스트",
        "🎉", "\u{2028}\u{2029}", "/", "~", "~1", "a somewhat longer sentence with spaces and punctuation.",
    ]

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &generator) < probability
    }

    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[Int.random(in: 0..<elements.count, using: &generator)]
    }

    mutating func scalar() -> JSONValue {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2, 3: return .int(Int.random(in: -1_000...1_000, using: &generator))
        case 4: return .int(pick([Int.max, Int.min, 0, 1 << 53, -(1 << 40)]))
        case 5: return .double(Double.random(in: -1_000...1_000, using: &generator))
        case 6: return .double(pick([0.5, -0.25, 1e-7, 1.5e300, 3.0, 0.1]))
        case 7: return .string(pick(Self.strings))
        default: return .string(String(Int.random(in: 0..<100_000, using: &generator), radix: 36))
        }
    }

    mutating func value(depth: Int = 0) -> JSONValue {
        guard depth < 5, depth == 0 || chance(0.5) else { return scalar() }
        if chance(0.5) {
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                object[pick(Self.keys)] = value(depth: depth + 1)
            }
            return .object(object)
        }
        return .array((0..<Int.random(in: 0...7, using: &generator)).map { _ in value(depth: depth + 1) })
    }

    /// A random edit of `value`: members changed, added and removed, elements inserted,
    /// removed, moved and changed, scalars replaced, sometimes a whole new value.
    mutating func edit(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        if chance(0.08) { return self.value(depth: depth) }
        switch value {
        case .object(var object):
            for key in object.keys {
                if chance(0.15) {
                    object[key] = nil
                } else if chance(0.3), let member = object[key] {
                    object[key] = edit(member, depth: depth + 1)
                }
            }
            for _ in 0..<Int.random(in: 0...2, using: &generator) where chance(0.4) {
                object[pick(Self.keys)] = self.value(depth: depth + 1)
            }
            return .object(object)
        case .array(var array):
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                switch Int.random(in: 0..<5, using: &generator) {
                case 0:
                    array.insert(self.value(depth: depth + 1), at: Int.random(in: 0...array.count, using: &generator))
                case 1 where !array.isEmpty:
                    array.remove(at: Int.random(in: 0..<array.count, using: &generator))
                case 2 where !array.isEmpty:
                    let moved = array.remove(at: Int.random(in: 0..<array.count, using: &generator))
                    array.insert(moved, at: Int.random(in: 0...array.count, using: &generator))
                case 3 where !array.isEmpty:
                    let index = Int.random(in: 0..<array.count, using: &generator)
                    array[index] = edit(array[index], depth: depth + 1)
                default:
                    array.append(scalar())
                }
            }
            return .array(array)
        default:
            return chance(0.5) ? scalar() : value
        }
    }

    /// A pair (a, b): mostly b is an edit of a; sometimes unrelated, sometimes equal.
    mutating func pair() -> (JSONValue, JSONValue) {
        let first = value()
        let roll = Double.random(in: 0..<1, using: &generator)
        if roll < 0.05 { return (first, first) }
        if roll < 0.15 { return (first, value()) }
        var second = edit(first)
        if chance(0.3) { second = edit(second) }
        return (first, second)
    }
}
