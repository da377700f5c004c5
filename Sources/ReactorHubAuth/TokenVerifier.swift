public import Foundation
internal import ReactorHubJSON

/// Verifies the JWTs of PROTOCOL.md "Identity and rights": compact JWS with the one
/// configured algorithm, then the claims, then revocation.
///
/// The order is fixed: size and shape (`malformed`), the header's `alg` (`algorithm`), the
/// signature (`bad signature`), and only then the payload is read at all: claim types and
/// `rh` (`malformed`), times (`expired`, `not yet valid`), `aud`, `iss`, revocation. The key
/// is loaded once, at `init`; `verify` is a pure function of the token and `now`, safe to
/// call from any thread.
public struct TokenVerifier: Sendable {
    /// The default clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
    public static let defaultLeewaySeconds = 30

    /// The configured algorithm, the only one accepted.
    let algorithm: TokenAlgorithm
    /// The `aud` a token must name, or nil to ignore `aud`.
    public let audience: String?
    /// The `iss` a token must have, or nil to ignore `iss`.
    public let issuer: String?
    /// The clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
    public let leewaySeconds: Int
    /// The revoked subjects, when revocation is in use.
    public let revocations: RevocationList?

    private let key: SignatureKey
    /// The base64url headers most issuers write for the configured algorithm (see
    /// `commonHeaders`); a token carrying one of them byte for byte is not parsed again.
    private let commonHeaders: [[UInt8]]

    /// The `alg` a token must name: `HS256`, `RS256` or `ES256` (the key stays private).
    public var algorithmName: String { algorithm.name }

    /// Creates a verifier, loading the key of `algorithm` (a PEM key is parsed here).
    ///
    /// Throws when the key is unreadable, of another type than the algorithm needs, or too
    /// weak (an empty secret, an RSA key under 2048 bits), or when the leeway is negative.
    public init(
        algorithm: TokenAlgorithm,
        audience: String? = nil,
        issuer: String? = nil,
        leewaySeconds: Int = TokenVerifier.defaultLeewaySeconds,
        revocations: RevocationList? = nil
    ) throws(TokenVerifierError) {
        guard leewaySeconds >= 0 else {
            throw TokenVerifierError(code: .invalidLeeway, message: "the leeway is \(leewaySeconds) seconds, expected 0 or more")
        }
        self.key = try SignatureKey(algorithm)
        self.commonHeaders = Self.commonHeaders(algorithm.name)
        self.algorithm = algorithm
        self.audience = audience
        self.issuer = issuer
        self.leewaySeconds = leewaySeconds
        self.revocations = revocations
    }

    /// Verifies `token` at the time `now`: the verified identity and rights, or why not.
    public func verify(_ token: String, now: Date) -> Result<VerifiedToken, TokenRefusal> {
        Result { () throws(TokenRefusal) in try verified(token, now: now.timeIntervalSince1970) }
    }

    /// When a connection holding `token` must be closed (`token expired`): `exp` plus the leeway.
    public func deadline(of token: VerifiedToken) -> Date {
        token.expiresAt.addingTimeInterval(TimeInterval(leewaySeconds))
    }

    private func verified(_ token: String, now: Double) throws(TokenRefusal) -> VerifiedToken {
        let jws = try CompactJWS(token)
        if !commonHeaders.contains(where: { $0.elementsEqual(jws.encodedHeader) }) {
            try checkAlgorithm(jws.header())
        }
        guard key.isValid(jws.signature, of: jws.signingInput) else {
            throw TokenRefusal(.badSignature, "the signature does not match the token under the configured \(algorithm.name) key")
        }
        let claims = try TokenClaims(jws.claims())
        try TokenTimes(leewaySeconds: leewaySeconds).check(claims, now: now)
        try checkAudience(claims.audiences)
        try checkIssuer(claims.issuer)
        let issuedAt = claims.issuedAt.map(Date.init(timeIntervalSince1970:))
        if let revocations, revocations.isRevoked(subject: claims.subject, issuedAt: issuedAt) {
            throw TokenRefusal(.revoked, "the tokens of this subject issued before its revocation (or without iat) are revoked")
        }
        return VerifiedToken(
            subject: claims.subject,
            expiresAt: Date(timeIntervalSince1970: claims.expiresAt),
            issuedAt: issuedAt,
            notBefore: claims.notBefore.map(Date.init(timeIntervalSince1970:)),
            rights: claims.rights,
            claims: claims.others
        )
    }

    /// `{"alg":NAME,"typ":"JWT"}` (PyJWT, jsonwebtoken, `reactorhub token`), the same with
    /// `typ` first, and `{"alg":NAME}`, base64url-encoded. Base64url is decoded canonically
    /// (one spelling per byte string), so a header equal to one of these is exactly that
    /// JSON: it names the configured algorithm and no `crit`, and `checkAlgorithm` would
    /// accept it. Every other header is parsed and checked.
    static func commonHeaders(_ name: String) -> [[UInt8]] {
        [#"{"alg":"\#(name)","typ":"JWT"}"#, #"{"typ":"JWT","alg":"\#(name)"}"#, #"{"alg":"\#(name)"}"#]
            .map { Array(Base64URL.encode($0.utf8).utf8) }
    }

    private func checkAlgorithm(_ header: JSONObject) throws(TokenRefusal) {
        guard let alg = header["alg"] else {
            throw TokenRefusal(.malformed, "the header has no alg, expected \"alg\":\"\(algorithm.name)\"")
        }
        guard let name = alg.stringValue else {
            throw TokenRefusal(.malformed, "the header's alg is \(alg.kind.phrase), expected the string \"\(algorithm.name)\"")
        }
        guard name.utf8.elementsEqual(algorithm.name.utf8) else {
            throw TokenRefusal(.algorithm, "the token is signed with \(Self.shown(name)), this server accepts only \(algorithm.name)")
        }
        if header["crit"] != nil {
            throw TokenRefusal(.malformed, "the header lists critical extensions (crit), and none are supported")
        }
    }

    private func checkAudience(_ audiences: [String]?) throws(TokenRefusal) {
        guard let audience else { return }
        guard let audiences, !audiences.isEmpty else {
            throw TokenRefusal(.audience, "the token names no audience (aud), expected \(Self.shown(audience))")
        }
        guard audiences.contains(where: { $0.utf8.elementsEqual(audience.utf8) }) else {
            let named = audiences.prefix(4).map(Self.shown).joined(separator: ", ")
            throw TokenRefusal(.audience, "the token's audience (aud) is \(named), expected \(Self.shown(audience))")
        }
    }

    private func checkIssuer(_ tokenIssuer: String?) throws(TokenRefusal) {
        guard let issuer else { return }
        guard let tokenIssuer else {
            throw TokenRefusal(.issuer, "the token names no issuer (iss), expected \(Self.shown(issuer))")
        }
        guard tokenIssuer.utf8.elementsEqual(issuer.utf8) else {
            throw TokenRefusal(.issuer, "the token's issuer (iss) is \(Self.shown(tokenIssuer)), expected \(Self.shown(issuer))")
        }
    }

    /// A value from the token, quoted and cut short, for a message.
    static func shown(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > 64 else { return "'\(text)'" }
        return "'\(String(String.UnicodeScalarView(scalars.prefix(64))))…'"
    }
}
