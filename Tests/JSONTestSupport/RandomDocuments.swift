public import ReactorHubJSON

/// SplitMix64: a small, fast generator whose sequence depends only on its seed, so
/// every run of the property tests sees the same documents.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
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
///
/// The `standard` profile is what the property tests were tuned on; `wide` (the
/// differential check against Python's jsonpatch, Fuzz/README.md) makes objects larger
/// than `JSONObject`'s hashed-index threshold, arrays long enough for the differ's
/// alignment, and adds keys that `String` equality confuses (canonically equivalent
/// spellings) but JSON, and every other implementation, tells apart.
public struct RandomDocuments: Sendable {
    /// The sizes and names a generator draws from.
    public struct Profile: Sendable {
        /// The most members of a generated object.
        public var maximumMembers: Int
        /// The most elements of a generated array.
        public var maximumElements: Int
        /// How deep containers nest.
        public var maximumDepth: Int
        /// The member names.
        public var keys: [String]
        /// The string values.
        public var strings: [String] = RandomDocuments.strings

        /// Small documents, the property tests' profile.
        public static let standard = Profile(maximumMembers: 6, maximumElements: 7, maximumDepth: 5, keys: RandomDocuments.keys)
        /// Larger containers, less deep, and equivalent spellings of keys.
        public static let wide = Profile(
            maximumMembers: 14, maximumElements: 24, maximumDepth: 3,
            keys: RandomDocuments.keys + RandomDocuments.equivalentKeys + (0..<12).map { "k\($0)" },
            strings: RandomDocuments.strings + RandomDocuments.equivalentKeys
        )
    }

    var generator: SeededGenerator
    let profile: Profile

    /// Creates a generator of documents fixed by `seed`.
    public init(seed: UInt64, profile: Profile = .standard) {
        generator = SeededGenerator(seed: seed)
        self.profile = profile
    }

    /// Keys (and, in the wide profile, values) in pairs that are equal as Swift `String`s and
    /// different as JSON strings:
    /// NFC and NFD, the Kelvin sign and `K`, combining marks in either order.
    public static let equivalentKeys = [
        "\u{E9}", "e\u{301}", "\u{212A}", "K", "a\u{301}\u{323}", "a\u{323}\u{301}", "\u{C5}", "\u{212B}",
    ]

    /// The member names of the standard profile.
    public static let keys = [
        "a", "b", "c", "id", "title", "done", "items", "a/b", "~", "~1", "~0/", "x~y/z", "", "0", "1", "-",
        "키", "ü", "🎉 party", "quote\"d", "back\\slash", "new\nline", "tab\t", "\u{1}",
    ]
    /// The string values.
    public static let strings = [
        "", "hello", "line\nbreak", "tab\there", "quote\"", "back\\slash", "ctrl\u{01}\u{1F}\u{7F}", "é", "한국어 텍스트",
        "🎉", "\u{2028}\u{2029}", "/", "~", "~1", "a somewhat longer sentence with spaces and punctuation.",
    ]

    /// True with `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &generator) < probability
    }

    /// An integer in `range`, uniformly.
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &generator)
    }

    /// One of `elements`, uniformly.
    public mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[Int.random(in: 0..<elements.count, using: &generator)]
    }

    /// A random null, boolean, number or string.
    public mutating func scalar() -> JSONValue {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2, 3: return .int(Int.random(in: -1_000...1_000, using: &generator))
        case 4: return .int(pick([Int.max, Int.min, 0, 1 << 53, -(1 << 40)]))
        case 5: return .double(Double.random(in: -1_000...1_000, using: &generator))
        case 6: return .double(pick([0.5, -0.25, 1e-7, 1.5e300, 3.0, 0.1]))
        case 7: return .string(pick(profile.strings))
        default: return .string(String(Int.random(in: 0..<100_000, using: &generator), radix: 36))
        }
    }

    /// A random document (a container at the top), nested at most `maximumDepth` levels.
    public mutating func value(depth: Int = 0) -> JSONValue {
        guard depth < profile.maximumDepth, depth == 0 || chance(0.5) else { return scalar() }
        if chance(0.5) {
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...profile.maximumMembers, using: &generator) {
                object[pick(profile.keys)] = value(depth: depth + 1)
            }
            return .object(object)
        }
        return .array((0..<Int.random(in: 0...profile.maximumElements, using: &generator)).map { _ in value(depth: depth + 1) })
    }

    /// A random edit of `value`: members changed, added and removed, elements inserted,
    /// removed, moved and changed, scalars replaced, sometimes a whole new value.
    public mutating func edit(_ value: JSONValue, depth: Int = 0) -> JSONValue {
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
                object[pick(profile.keys)] = self.value(depth: depth + 1)
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
    public mutating func pair() -> (JSONValue, JSONValue) {
        let first = value()
        let roll = Double.random(in: 0..<1, using: &generator)
        if roll < 0.05 { return (first, first) }
        if roll < 0.15 { return (first, value()) }
        var second = edit(first)
        if chance(0.3) { second = edit(second) }
        return (first, second)
    }
}
