import ReactorHubAuth
import Foundation
import Testing

@Suite struct TokenVerifierTests {
    static func pem(_ name: String) throws -> String {
        try String(contentsOf: Python.vectorsFolder.appendingPathComponent(name), encoding: .utf8)
    }

    func expectKeyError(_ algorithm: TokenAlgorithm, _ code: TokenVerifierError.Code, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try TokenVerifier(algorithm: algorithm)
            Issue.record("the verifier accepted the key", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, sourceLocation: sourceLocation)
            #expect(error.message.hasPrefix(message), "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test func loadsTheRSAAndP256PublicKeys() throws {
        let rsa = try TokenVerifier(algorithm: .rs256(publicKeyPEM: Self.pem("rsa-public.pem")))
        let ec = try TokenVerifier(algorithm: .es256(publicKeyPEM: Self.pem("ec-public.pem")))
        #expect(rsa.algorithmName == "RS256")
        #expect(ec.algorithmName == "ES256")
        #expect(rsa.leewaySeconds == 30)
    }

    @Test func aPEMWithoutAPublicKeyIsAReadableError() throws {
        expectKeyError(.rs256(publicKeyPEM: ""), .unreadableKey, "no PEM public key (-----BEGIN PUBLIC KEY-----) could be read")
        expectKeyError(.rs256(publicKeyPEM: "not a key"), .unreadableKey, "no PEM public key (-----BEGIN PUBLIC KEY-----) could be read: ")
        let broken = try Self.pem("rsa-public.pem").replacingOccurrences(of: "MII", with: "MIJ")
        expectKeyError(.rs256(publicKeyPEM: broken), .unreadableKey, "no PEM public key")
    }

    @Test func aPrivateKeyPEMIsNotTakenForAPublicKey() throws {
        expectKeyError(.rs256(publicKeyPEM: try Self.pem("rsa-private.pem")), .unreadableKey, "no PEM public key")
        expectKeyError(.es256(publicKeyPEM: try Self.pem("ec-private.pem")), .unreadableKey, "no PEM public key")
    }

    @Test func aKeyOfTheWrongTypeIsAReadableError() throws {
        expectKeyError(.rs256(publicKeyPEM: try Self.pem("ec-public.pem")), .wrongKeyType, "RS256 needs an RSA public key, the PEM holds an EC key")
        expectKeyError(.es256(publicKeyPEM: try Self.pem("rsa-public.pem")), .wrongKeyType, "ES256 needs an EC public key on P-256, the PEM holds an RSA key")
        expectKeyError(.es256(publicKeyPEM: try Self.pem("ec-p384-public.pem")), .wrongKeyType, "ES256 needs an EC key on P-256 (prime256v1), this one is on secp384r1")
    }

    @Test func weakKeysAreRefused() throws {
        expectKeyError(.rs256(publicKeyPEM: try Self.pem("rsa1024-public.pem")), .weakKey, "RS256 needs an RSA key of at least 2048 bits, this one has 1024")
        expectKeyError(.hs256(secret: []), .weakKey, "HS256 needs a secret; the secret is empty")
    }

    @Test func aNegativeLeewayIsRefused() {
        #expect(throws: TokenVerifierError(code: .invalidLeeway, message: "the leeway is -1 seconds, expected 0 or more")) {
            try TokenVerifier(algorithm: .hs256(secret: [1]), leewaySeconds: -1)
        }
    }

    @Test func refusalsSayWhatWasWrong() throws {
        let file = try #require(VectorFile.checkedIn)
        func refusal(_ name: String) throws -> String {
            let vector = try #require(file.vectors.first { $0.name == name })
            return try #require(file.verifier(for: vector).verify(vector.token, now: file.now).refusal).description
        }
        #expect(try refusal("expired an hour ago") == "expired: the token expired at 1767222000 (2025-12-31T23:00:00Z) (exp), it is now 1767225600 (2026-01-01T00:00:00Z), with 30 s of leeway")
        #expect(try refusal("alg none with an empty signature") == "algorithm: the token is signed with 'none', this server accepts only HS256")
        #expect(try refusal("HS256 signature with one byte flipped") == "bad signature: the signature does not match the token under the configured HS256 key")
        #expect(try refusal("sub twice in the claims") == "malformed: the payload is not valid JSON: duplicate key 'sub' in an object, each key may appear only once")
        #expect(try refusal("exp as a string") == "malformed: the claim exp is a string, expected a number of seconds since 1970")
        #expect(try refusal("four parts") == "malformed: a token is three base64url parts joined by '.' (compact JWS), this one has 4")
        #expect(try refusal("padded base64url signature") == "malformed: the signature is not canonical base64url (A-Z a-z 0-9 - _, no '=' padding)")
        #expect(try refusal("aud string of another audience") == "audience: the token's audience (aud) is 'other', expected 'reactorhub'")
        #expect(try refusal("iss absent when an issuer is configured") == "issuer: the token names no issuer (iss), expected 'https://issuer.example'")
        #expect(try refusal("sub of 129 characters") == "malformed: the claim sub has 129 characters (Unicode scalars), expected 1 to 128")
        #expect(try refusal("rh with a star inside the id") == "malformed: the claim rh holds an invalid rights pattern 'doc/a*b': '*' may only end the pattern, as in KIND/* or KIND/PREFIX*")
    }

    @Test func theDeadlineIsExpiryPlusLeeway() throws {
        let file = try #require(VectorFile.checkedIn)
        let vector = try #require(file.vectors.first { $0.name == "HS256 token from PyJWT" })
        let verifier = try TokenVerifier(algorithm: .hs256(secret: file.secret), leewaySeconds: 45)
        let token = try verifier.verify(vector.token, now: file.now).get()
        #expect(token.expiresAt == file.now + 3_600)
        #expect(verifier.deadline(of: token) == file.now + 3_645)
        #expect(token.issuedAt == file.now - 60)
        #expect(token.notBefore == nil)
        #expect(verifier.verify(vector.token, now: file.now + 3_644).refusal == nil)
        #expect(verifier.verify(vector.token, now: file.now + 3_645).refusal?.reason == .expired)
    }

    @Test func sameSubjectComparesBytesNotCanonicalEquivalence() {
        let kelvin = VerifiedToken(subject: "\u{212A}", expiresAt: Date(), issuedAt: nil, notBefore: nil, rights: .none)
        let letter = VerifiedToken(subject: "K", expiresAt: Date(), issuedAt: nil, notBefore: nil, rights: .none)
        #expect(kelvin.subject == letter.subject)
        #expect(!kelvin.hasSameSubject(as: letter))
        #expect(letter.hasSameSubject(as: letter))
    }

    @Test func everyReasonIsSpelledAsInTheProtocol() {
        #expect(TokenRefusal.Reason.allCases.map(\.rawValue) == [
            "expired", "not yet valid", "bad signature", "malformed", "audience", "issuer", "algorithm", "revoked",
        ])
    }
}
