/// What one connection may do: the `read` and `act` patterns of its token's `rh` claim (or
/// of `auth.anonymousRights`), bound to the token's subject for `{sub}`.
///
/// A reactor is allowed for a right when any of that right's patterns matches it. `act`
/// does not imply `read`.
public struct Rights: Sendable, Hashable {
    /// The patterns that allow join, resume and presence.
    public let read: [RightsPattern]
    /// The patterns that allow actions.
    public let act: [RightsPattern]
    /// The token's `sub`, which stands for `{sub}`; nil for an anonymous connection, whose
    /// `{sub}` patterns match nothing.
    public let subject: String?

    /// Creates rights from parsed patterns.
    public init(read: [RightsPattern] = [], act: [RightsPattern] = [], subject: String? = nil) {
        self.read = read
        self.act = act
        self.subject = subject
    }

    /// No rights at all: a token without `rh`, and the default anonymous rights.
    public static let none = Rights()

    /// Parses the patterns of `auth.anonymousRights` (no subject).
    ///
    /// `{sub}` is refused there: an anonymous connection has no subject, so such a pattern
    /// could never match, which is surely not what the configuration meant.
    public static func parse(read: [String], act: [String]) throws(RightsPatternError) -> Rights {
        let read = try patterns(read)
        let act = try patterns(act)
        if let pattern = (read + act).first(where: \.usesSubject) {
            throw RightsPatternError(pattern: pattern.text, message: "{sub} needs a token's subject, and anonymous connections have none")
        }
        return Rights(read: read, act: act)
    }

    /// Parses the patterns of a token's `rh` claim for `subject`.
    public static func parse(read: [String], act: [String], subject: String) throws(RightsPatternError) -> Rights {
        Rights(read: try patterns(read), act: try patterns(act), subject: subject)
    }

    /// The patterns of one right.
    public func patterns(for right: Right) -> [RightsPattern] {
        switch right {
        case .read: read
        case .act: act
        }
    }

    /// Whether `right` is allowed on the reactor `kind`/`id`.
    public func allows(_ right: Right, kind: String, id: String) -> Bool {
        patterns(for: right).contains { $0.matches(kind: kind, id: id, subject: subject) }
    }

    /// Whether `right` is allowed on the reactor at `address`, `KIND/ID`.
    public func allows(_ right: Right, reactor address: String) -> Bool {
        guard let (kind, id) = Self.split(address) else { return false }
        return allows(right, kind: kind, id: id)
    }

    private static func patterns(_ texts: [String]) throws(RightsPatternError) -> [RightsPattern] {
        var patterns: [RightsPattern] = []
        patterns.reserveCapacity(texts.count)
        for text in texts {
            patterns.append(try RightsPattern(text))
        }
        return patterns
    }

    /// `KIND/ID` split at its first `/`, or nil without one.
    static func split(_ address: String) -> (kind: String, id: String)? {
        let scalars = address.unicodeScalars
        guard let slash = scalars.firstIndex(of: "/") else { return nil }
        let kind = String(Substring(scalars[..<slash]))
        let id = String(Substring(scalars[scalars.index(after: slash)...]))
        return (kind, id)
    }
}
