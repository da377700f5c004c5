import ReactorHubAuth
import Foundation
import Testing

@Suite struct RevocationTests {
    static let secret = Array("revocation-test-secret-of-32-bytes!".utf8)
    static let revokedAt = Date(timeIntervalSince1970: 1_767_225_600)

    func verifier(_ list: RevocationList) throws -> TokenVerifier {
        try TokenVerifier(algorithm: .hs256(secret: Self.secret), revocations: list)
    }

    func token(sub: String = "alice", issuedAt: Date) throws -> String {
        try TokenMinter(secret: Self.secret).mint(subject: sub, read: ["doc/*"], act: [], ttl: .seconds(3_600), now: issuedAt)
    }

    @Test func tokenIssuedBeforeTheRevocationIsRevoked() throws {
        let list = RevocationList()
        list.revoke(subject: "alice", at: Self.revokedAt)
        let result = try verifier(list).verify(try token(issuedAt: Self.revokedAt - 1), now: Self.revokedAt + 10)
        #expect(result.refusal?.reason == .revoked)
    }

    @Test func tokenIssuedAtOrAfterTheRevocationVerifies() throws {
        let list = RevocationList()
        list.revoke(subject: "alice", at: Self.revokedAt)
        let verifier = try verifier(list)
        #expect(try verifier.verify(token(issuedAt: Self.revokedAt), now: Self.revokedAt + 10).refusal == nil)
        #expect(try verifier.verify(token(issuedAt: Self.revokedAt + 5), now: Self.revokedAt + 10).refusal == nil)
    }

    @Test func tokenWithoutIatOfARevokedSubjectIsRevoked() throws {
        let file = try #require(VectorFile.checkedIn)
        let vector = try #require(file.vectors.first { $0.name == "token without iat" })
        let list = RevocationList()
        let verifier = try TokenVerifier(algorithm: .hs256(secret: file.secret), leewaySeconds: file.leewaySeconds, revocations: list)
        #expect(verifier.verify(vector.token, now: file.now).refusal == nil)
        list.revoke(subject: "alice", at: file.now - 86_400)
        #expect(verifier.verify(vector.token, now: file.now).refusal?.reason == .revoked)
    }

    @Test func revocationTouchesOnlyItsSubject() throws {
        let list = RevocationList()
        list.revoke(subject: "alice", at: Self.revokedAt)
        let result = try verifier(list).verify(try token(sub: "bob", issuedAt: Self.revokedAt - 60), now: Self.revokedAt)
        #expect(result.refusal == nil)
        #expect(list.count == 1)
    }

    @Test func revokingAgainMovesTheTimeForwardOnly() {
        let list = RevocationList()
        list.revoke(subject: "alice", at: Self.revokedAt)
        list.revoke(subject: "alice", at: Self.revokedAt - 100)
        #expect(list.revocationTime(of: "alice") == Self.revokedAt)
        list.revoke(subject: "alice", at: Self.revokedAt + 100)
        #expect(list.revocationTime(of: "alice") == Self.revokedAt + 100)
        #expect(list.isRevoked(subject: "alice", issuedAt: Self.revokedAt + 99))
        #expect(!list.isRevoked(subject: "alice", issuedAt: Self.revokedAt + 100))
        #expect(list.isRevoked(subject: "alice", issuedAt: nil))
        #expect(!list.isRevoked(subject: "bob", issuedAt: nil))
    }

    @Test func revocationsFromManyThreadsAreAllKept() async {
        let list = RevocationList()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { list.revoke(subject: "user\(index % 50)", at: Self.revokedAt + Double(index)) }
            }
        }
        #expect(list.count == 50)
        #expect(list.revocationTime(of: "user0") == Self.revokedAt + 150)
    }
}
