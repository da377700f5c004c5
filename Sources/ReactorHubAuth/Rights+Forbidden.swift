extension Rights {
    /// The most patterns a refusal message lists before it says how many more there are.
    static let listedPatterns = 8

    /// The message of the `forbidden` error for `right` on `kind`/`id`, or nil when allowed.
    ///
    /// It names the reactor, the missing right and the patterns of that right, e.g.
    /// "doc/secret needs the 'act' right; this token's act patterns: doc/team-*".
    public func forbiddenMessage(_ right: Right, kind: String, id: String) -> String? {
        allows(right, kind: kind, id: id) ? nil : refusal(right, reactor: "\(kind)/\(id)")
    }

    /// The message of the `forbidden` error for `right` on `address` (`KIND/ID`), or nil when allowed.
    public func forbiddenMessage(_ right: Right, reactor address: String) -> String? {
        allows(right, reactor: address) ? nil : refusal(right, reactor: address)
    }

    private func refusal(_ right: Right, reactor: String) -> String {
        let patterns = patterns(for: right)
        var listed = patterns.prefix(Self.listedPatterns).map(\.text).joined(separator: ", ")
        if patterns.isEmpty { listed = "none" }
        if patterns.count > Self.listedPatterns { listed += " and \(patterns.count - Self.listedPatterns) more" }
        let holder = subject == nil ? "an anonymous connection's" : "this token's"
        return "\(reactor) needs the '\(right)' right; \(holder) \(right) patterns: \(listed)"
    }
}
