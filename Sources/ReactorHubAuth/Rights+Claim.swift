internal import ReactorHubJSON

extension Rights {
    /// The rights of a token's `rh` claim, `{"read":[PATTERN…],"act":[PATTERN…]}`, for `subject`.
    ///
    /// No claim gives no rights. A missing `read` or `act` is an empty list. Anything else
    /// (not an object, another member, a list that is not of strings, an invalid pattern) is
    /// `malformed`: a token whose rights cannot be read must not be half-trusted.
    init(claim: JSONValue?, subject: String) throws(TokenRefusal) {
        guard let claim else {
            self.init(subject: subject)
            return
        }
        guard let object = claim.objectValue else {
            throw TokenRefusal(.malformed, "the claim rh is \(claim.kind.phrase), expected an object {\"read\":[…],\"act\":[…]}")
        }
        if let other = object.keys.first(where: { $0 != "read" && $0 != "act" }) {
            throw TokenRefusal(.malformed, "the claim rh has a member '\(other)', expected only read and act")
        }
        let read = try Self.strings(object["read"], right: .read)
        let act = try Self.strings(object["act"], right: .act)
        do {
            self = try Rights.parse(read: read, act: act, subject: subject)
        } catch {
            throw TokenRefusal(.malformed, "the claim rh holds an \(error)")
        }
    }

    private static func strings(_ value: JSONValue?, right: Right) throws(TokenRefusal) -> [String] {
        guard let value else { return [] }
        guard let elements = value.arrayValue else {
            throw TokenRefusal(.malformed, "rh.\(right) is \(value.kind.phrase), expected an array of pattern strings")
        }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard let string = element.stringValue else {
                throw TokenRefusal(.malformed, "rh.\(right) holds \(element.kind.phrase), expected only pattern strings")
            }
            strings.append(string)
        }
        return strings
    }
}
