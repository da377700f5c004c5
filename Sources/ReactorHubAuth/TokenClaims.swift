internal import ReactorHubJSON

/// The registered claims of a verified payload (RFC 7519 §4.1), each checked for its type,
/// and the rights of `rh`; anything of the wrong type is `malformed`.
struct TokenClaims {
    /// The most Unicode scalars a `sub` may have (PROTOCOL.md: 1 to 128 characters).
    static let maximumSubjectScalars = 128
    /// The most UTF-8 bytes a `sub` may have.
    static let maximumSubjectBytes = 512

    let subject: String
    let expiresAt: Double
    let notBefore: Double?
    let issuedAt: Double?
    /// `aud` as a list; nil when absent.
    let audiences: [String]?
    let issuer: String?
    let rights: Rights
    /// The claims besides the registered ones and `rh`, for a kind that reads one.
    let others: [String: JSONValue]

    /// The claims the verifier reads itself.
    static let registered: Set<String> = ["sub", "exp", "nbf", "iat", "aud", "iss", "jti", "rh"]

    init(_ claims: JSONObject) throws(TokenRefusal) {
        subject = try Self.subject(claims["sub"])
        guard let expiresAt = try Self.seconds(claims["exp"], "exp") else {
            throw TokenRefusal(.malformed, "the token has no exp claim (its expiry in seconds since 1970), which is required")
        }
        self.expiresAt = expiresAt
        notBefore = try Self.seconds(claims["nbf"], "nbf")
        issuedAt = try Self.seconds(claims["iat"], "iat")
        audiences = try Self.audiences(claims["aud"])
        issuer = try Self.issuer(claims["iss"])
        rights = try Rights(claim: claims["rh"], subject: subject)
        var others: [String: JSONValue] = [:]
        for (name, value) in claims where !Self.registered.contains(name) {
            others[name] = value
        }
        self.others = others
    }

    /// The subject in NFC (`TokenSubject`), its length checked (as written) in Unicode
    /// scalars, not `Character`s: a grapheme can hold any number of combining scalars, so counting
    /// characters would let a 1-character `sub` be kilobytes long. The byte cap is then
    /// implied (a scalar is at most 4 bytes) but stated, as the limit that matters to storage.
    static func subject(_ value: JSONValue?) throws(TokenRefusal) -> String {
        guard let value else {
            throw TokenRefusal(.malformed, "the token has no sub claim (the user), which is required")
        }
        guard let subject = value.stringValue else {
            throw TokenRefusal(.malformed, "the claim sub is \(value.kind.phrase), expected a string of 1 to 128 characters")
        }
        let scalars = subject.unicodeScalars.count
        guard scalars >= 1, scalars <= maximumSubjectScalars, subject.utf8.count <= maximumSubjectBytes else {
            throw TokenRefusal(
                .malformed,
                "the claim sub has \(scalars) characters (Unicode scalars), expected 1 to \(maximumSubjectScalars)"
            )
        }
        // Measured as written; NFC is at most three times as many scalars.
        return TokenSubject.normalized(subject)
    }

    /// A NumericDate (RFC 7519 §2): an integer or a fraction of seconds since 1970.
    private static func seconds(_ value: JSONValue?, _ name: String) throws(TokenRefusal) -> Double? {
        guard let value else { return nil }
        switch value {
        case .int(let seconds): return Double(seconds)
        case .double(let seconds): return seconds
        default:
            throw TokenRefusal(.malformed, "the claim \(name) is \(value.kind.phrase), expected a number of seconds since 1970")
        }
    }

    private static func audiences(_ value: JSONValue?) throws(TokenRefusal) -> [String]? {
        guard let value else { return nil }
        if let audience = value.stringValue { return [audience] }
        let expected = "expected a string or an array of strings"
        guard let elements = value.arrayValue else {
            throw TokenRefusal(.malformed, "the claim aud is \(value.kind.phrase), \(expected)")
        }
        var audiences: [String] = []
        for element in elements {
            guard let audience = element.stringValue else {
                throw TokenRefusal(.malformed, "the claim aud holds \(element.kind.phrase), \(expected)")
            }
            audiences.append(audience)
        }
        return audiences
    }

    private static func issuer(_ value: JSONValue?) throws(TokenRefusal) -> String? {
        guard let value else { return nil }
        guard let issuer = value.stringValue else {
            throw TokenRefusal(.malformed, "the claim iss is \(value.kind.phrase), expected a string")
        }
        return issuer
    }
}
