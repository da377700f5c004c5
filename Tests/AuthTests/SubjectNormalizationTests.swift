import ReactorHubAuth
import Foundation
import Testing

/// A token's `sub` in NFC: a composed and a decomposed `josé` are one user, in the
/// verified token, its rights' `{sub}` and the revocation list.
@Suite struct SubjectNormalizationTests {
    static let secret = Array("normalization-test-secret-32-bytes".utf8)
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let composed = "jos\u{E9}"
    static let decomposed = "jose\u{301}"

    func verify(_ sub: String, read: [String] = ["doc/*"], issuedAt: Date = now, list: RevocationList = RevocationList()) throws -> VerifiedToken? {
        let token = try TokenMinter(secret: Self.secret).mint(subject: sub, read: read, act: [], ttl: .seconds(3_600), now: issuedAt)
        return try? TokenVerifier(algorithm: .hs256(secret: Self.secret), revocations: list).verify(token, now: Self.now).get()
    }

    @Test func bothSpellingsVerifyToTheSameBytes() throws {
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        let composed = try #require(try verify(Self.composed))
        let decomposed = try #require(try verify(Self.decomposed))
        #expect(Array(decomposed.subject.utf8) == Array(Self.composed.utf8))
        #expect(Array(composed.subject.utf8) == Array(decomposed.subject.utf8))
    }

    @Test func revokingOneSpellingRevokesTheOther() throws {
        for (revoked, presented) in [(Self.composed, Self.decomposed), (Self.decomposed, Self.composed)] {
            let list = RevocationList()
            list.revoke(subject: revoked, at: Self.now)
            #expect(try verify(presented, issuedAt: Self.now - 60, list: list) == nil)
            #expect(list.isRevoked(subject: presented, issuedAt: Self.now - 60))
            #expect(list.count == 1)
        }
    }

    @Test func theSubjectPlaceholderTakesTheNormalizedSubject() throws {
        let token = try #require(try verify(Self.decomposed, read: ["doc/notes-{sub}"]))
        #expect(token.subject == Self.composed)
        #expect(Array(token.subject.utf8) == Array(TokenSubject.normalized(Self.decomposed).utf8))
    }
}
