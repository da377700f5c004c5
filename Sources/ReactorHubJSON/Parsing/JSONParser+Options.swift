extension JSONParser {
    /// Stricter rules a parser can apply on top of RFC 8259; none are on by default.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int

        /// Creates options from their bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Refuses an object that names a member twice (`duplicateKey`), rather than keeping
        /// the last value.
        ///
        /// For input where two readers must not see different values, such as the header and
        /// claims of a signed token: RFC 8259 leaves duplicates to the reader, and readers
        /// disagree (first wins, last wins). Keys are compared as `String`s, so two spellings
        /// of one key (`"sub"` and `"su\u0062"`, or canonically equivalent forms) are duplicates.
        public static let rejectDuplicateKeys = Options(rawValue: 1 << 0)
    }
}

extension JSONParseError.Code {
    /// An object names the same member twice, with `JSONParser.Options.rejectDuplicateKeys`.
    public static let duplicateKey = JSONParseError.Code(rawValue: "duplicateKey")
}

/// The keys seen so far in one object, checked only when duplicates are refused.
///
/// Keys are told apart as `JSONObject` tells them apart, by Unicode scalars (`"é"` and
/// `"e\u{301}"` are two members). A small object is scanned (a token's header and claims
/// have a handful of members); past `JSONObject.indexThreshold` members the keys go into a
/// set, so a large hostile object still costs linear time. When duplicates are allowed it
/// holds nothing and admits every key.
struct DuplicateKeyGuard {
    private let rejecting: Bool
    private var seen: Set<MemberName>?

    init(rejecting: Bool) {
        self.rejecting = rejecting
    }

    /// Whether `key` may be added to an object already holding `entries`: always when
    /// duplicates are allowed, else when no entry has that key.
    mutating func admit(_ key: String, to entries: ArraySlice<JSONObject.Entry>) -> Bool {
        guard rejecting else { return true }
        if seen == nil, entries.count < JSONObject.indexThreshold {
            return !entries.contains { JSONObject.sameKey($0.key, key) }
        }
        var keys = seen.take() ?? Set(entries.map { MemberName($0.key) })
        let inserted = keys.insert(MemberName(key)).inserted
        seen = keys
        return inserted
    }

    /// The error message for a repeated key; a long key is shortened.
    static func message(for key: String) -> String {
        let shown = key.unicodeScalars.count > 64 ? String(String.UnicodeScalarView(key.unicodeScalars.prefix(64))) + "…" : key
        return "duplicate key '\(shown)' in an object, each key may appear only once"
    }
}
