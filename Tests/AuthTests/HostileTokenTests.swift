import ReactorHubAuth
import Foundation
import Testing

/// The attacks a token verifier must resist, each with the exact reason it is refused.
/// The tokens are PyJWT's (Vectors/tokens.json), looked up by name.
@Suite struct HostileTokenTests {
    func expect(_ name: String, _ reason: TokenRefusal.Reason?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = try #require(VectorFile.checkedIn, sourceLocation: sourceLocation)
        let vector = try #require(file.vectors.first { $0.name == name }, "no vector named \(name)", sourceLocation: sourceLocation)
        #expect(vector.reason == reason, "the vector \(name) expects \(vector.reason?.rawValue ?? "valid")", sourceLocation: sourceLocation)
        try file.expectOutcome(of: vector, sourceLocation: sourceLocation)
    }

    @Test func algNoneWithAnEmptySignatureIsRefusedAsAlgorithm() throws {
        try expect("alg none with an empty signature", .algorithm)
        try expect("alg none against RS256", .algorithm)
    }

    @Test func hs256SignedWithTheRSAPublicKeyPEMIsRefusedAsAlgorithmWhenRS256IsConfigured() throws {
        try expect("HS256 keyed with the RS256 public key PEM (key confusion)", .algorithm)
    }

    @Test func anotherAlgorithmThanTheConfiguredOneIsRefused() throws {
        try expect("RS256 token against ES256", .algorithm)
        try expect("ES256 token against HS256", .algorithm)
        try expect("alg in lower case", .algorithm)
    }

    @Test func aFlippedSignatureByteIsABadSignatureForEachAlgorithm() throws {
        try expect("HS256 signature with one byte flipped", .badSignature)
        try expect("RS256 signature with one byte flipped", .badSignature)
        try expect("ES256 signature with one byte flipped", .badSignature)
        try expect("ES256 signature with a byte of S flipped", .badSignature)
    }

    @Test func es256SignatureOfAnyLengthBut64BytesIsABadSignature() throws {
        try expect("ES256 signature in DER rather than R||S", .badSignature)
        try expect("ES256 signature of 63 bytes", .badSignature)
        try expect("ES256 signature of 65 bytes", .badSignature)
    }

    @Test func truncatedBase64URLIsMalformed() throws {
        try expect("truncated base64url payload", .malformed)
        try expect("truncated base64url signature", .malformed)
    }

    @Test func paddedBase64URLIsMalformed() throws {
        try expect("padded base64url signature", .malformed)
        try expect("padded base64url header", .malformed)
    }

    @Test func charactersOutsideTheBase64URLAlphabetAreMalformed() throws {
        try expect("standard base64 '+' in the signature", .malformed)
        try expect("standard base64 '/' in the payload", .malformed)
        try expect("space in the token", .malformed)
        try expect("non-ASCII letter in the token", .malformed)
        try expect("non-zero trailing bits in base64url", .malformed)
    }

    @Test func aTokenOfExactly8192BytesVerifiesAndOneOf8193IsMalformed() throws {
        try expect("token of exactly 8192 bytes", nil)
        try expect("token of 8193 bytes", .malformed)
    }

    @Test func aHugeTokenIsRefusedBeforeAnyParsing() throws {
        let verifier = try TokenVerifier(algorithm: .hs256(secret: Array("k".utf8)))
        let huge = String(repeating: "{", count: 1 << 20)
        let result = verifier.verify(huge, now: Date())
        #expect(result.refusal?.reason == .malformed)
        #expect(result.refusal?.message == "the token is 1048576 bytes long, at most 8192 are accepted")
    }

    @Test func duplicateClaimsAreMalformed() throws {
        try expect("sub twice in the claims", .malformed)
        try expect("sub twice, once spelled with an escape", .malformed)
        try expect("exp twice in the claims", .malformed)
        try expect("read twice inside rh", .malformed)
    }

    @Test func duplicateHeaderMembersAreMalformed() throws {
        try expect("alg twice in the header", .malformed)
        try expect("alg twice in the header, none then HS256", .malformed)
    }

    @Test func aSubOf128ScalarsVerifiesAndOneOf129IsMalformed() throws {
        try expect("sub of 128 characters", nil)
        try expect("sub of 129 characters", .malformed)
        try expect("sub of 128 four-byte scalars (512 bytes)", nil)
        try expect("sub of 129 four-byte scalars", .malformed)
    }

    @Test func subLengthCountsUnicodeScalarsNotGraphemes() throws {
        try expect("sub of 64 graphemes of 2 scalars (128 scalars)", nil)
        try expect("sub of 65 graphemes of 2 scalars (130 scalars)", .malformed)
        try expect("sub of one grapheme of 200 scalars", .malformed)
    }

    @Test func anEmptyOrMissingSubIsMalformed() throws {
        try expect("empty sub", .malformed)
        try expect("missing sub", .malformed)
        try expect("sub that is a number", .malformed)
    }

    @Test func expOfTheWrongTypeOrMissingIsMalformed() throws {
        try expect("exp as a string", .malformed)
        try expect("exp as a boolean", .malformed)
        try expect("exp null", .malformed)
        try expect("missing exp", .malformed)
        try expect("nbf as a string", .malformed)
        try expect("iat as a string", .malformed)
    }

    @Test func subInjectionNeverWidensAPattern() throws {
        try expect("sub '*' does not widen doc/notes-{sub}", nil)
        try expect("sub 'a/b' does not widen doc/notes-{sub}", nil)
        try expect("sub 'x*' does not widen doc/notes-{sub}", nil)
        try expect("sub of the Kelvin sign is K in NFC, so doc/notes-{sub} is doc/notes-K", nil)
        try expect("sub '*' as the kind matches no kind", nil)
    }

    @Test func leewayEdgesOfExp() throws {
        try expect("exp one second inside the leeway", nil)
        try expect("exp exactly at the leeway", .expired)
    }

    @Test func nbfInTheFutureIsNotYetValid() throws {
        try expect("nbf an hour ahead", .notYetValid)
        try expect("nbf exactly at the leeway", nil)
        try expect("nbf one second past the leeway", .notYetValid)
        try expect("iat an hour ahead", .notYetValid)
    }

    @Test func audienceAsStringOrArray() throws {
        try expect("aud string equal to the audience", nil)
        try expect("aud array holding the audience", nil)
        try expect("aud string of another audience", .audience)
        try expect("aud array without the audience", .audience)
        try expect("aud absent when an audience is configured", .audience)
        try expect("aud ignored when no audience is configured", nil)
    }

    @Test func issuerIsCheckedOnlyWhenConfigured() throws {
        try expect("iss equal to the issuer", nil)
        try expect("iss of another issuer", .issuer)
        try expect("iss absent when an issuer is configured", .issuer)
        try expect("iss ignored when no issuer is configured", nil)
    }
}

extension Result where Failure == TokenRefusal {
    /// The refusal, or nil when the token verified.
    var refusal: TokenRefusal? {
        if case .failure(let refusal) = self { return refusal }
        return nil
    }
}
