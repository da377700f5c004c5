import ReactorHubAuth
import Foundation
import ReactorHubJSON
import Testing

@Suite struct TokenMinterTests {
    static let secret = "minter-test-secret-of-at-least-32-bytes"
    static let now = Date(timeIntervalSince1970: 1_767_225_600.75)

    func mint(_ subject: String = "alice", read: [String] = ["doc/*"], act: [String] = ["doc/team-*"], ttl: Duration = .seconds(3_600), now: Date = now) throws -> String {
        try TokenMinter(secret: Array(Self.secret.utf8)).mint(subject: subject, read: read, act: act, ttl: ttl, now: now)
    }

    @Test func mintedTokenVerifiesWithTheSameSecret() throws {
        let verifier = try TokenVerifier(algorithm: .hs256(secret: Array(Self.secret.utf8)))
        let token = try verifier.verify(try mint(), now: Self.now).get()
        #expect(token.subject == "alice")
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_767_229_200))
        #expect(token.rights.read.map(\.text) == ["doc/*"])
        #expect(token.rights.act.map(\.text) == ["doc/team-*"])
        #expect(token.rights.allows(.act, reactor: "doc/team-a"))
    }

    @Test func mintedTokenDoesNotVerifyWithAnotherSecret() throws {
        let verifier = try TokenVerifier(algorithm: .hs256(secret: Array("another secret".utf8)))
        #expect(verifier.verify(try mint(), now: Self.now).refusal?.reason == .badSignature)
    }

    @Test func mintedTokenHoldsExactlyTheDocumentedClaims() throws {
        let token = try mint()
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try JSONValue(parsing: Self.base64URLDecoded(parts[0]))
        let claims = try JSONValue(parsing: Self.base64URLDecoded(parts[1]))
        #expect(header == ["alg": "HS256", "typ": "JWT"])
        #expect(claims.objectValue?.keys == ["sub", "iat", "exp", "rh"])
        #expect(claims == ["sub": "alice", "iat": 1_767_225_600, "exp": 1_767_229_200, "rh": ["read": ["doc/*"], "act": ["doc/team-*"]]])
    }

    @Test func pyJWTDecodesAMintedToken() throws {
        guard Python.hasPyJWT() else { return }
        let token = try mint(ttl: .seconds(600), now: Date())
        let run = try Python.run("decode_with_pyjwt.py", [Self.secret, token])
        #expect(run.status == 0, "\(run.output)")
        let claims = try JSONValue(parsing: run.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(claims["sub"] == "alice")
        #expect(claims["rh"] == ["act": ["doc/team-*"], "read": ["doc/*"]])
        #expect(claims["exp"]?.intValue == claims["iat"]?.intValue.map { $0 + 600 })
    }

    @Test func pyJWTRefusesAMintedTokenWithAFlippedSignature() throws {
        guard Python.hasPyJWT() else { return }
        var token = try mint(now: Date())
        let last = token.removeLast()
        token.append(last == "A" ? "E" : "A")
        let run = try Python.run("decode_with_pyjwt.py", [Self.secret, token])
        #expect(run.status == 1)
        #expect(run.output.contains("PyJWT refused the token"), "\(run.output)")
    }

    @Test func mintingRefusesWhatTheVerifierWouldRefuse() {
        #expect(throws: TokenMinterError.self) { try mint("") }
        #expect(throws: TokenMinterError.self) { try mint(String(repeating: "a", count: 129)) }
        #expect(throws: TokenMinterError(code: .invalidPattern, message: "invalid rights pattern 'doc/a*b': '*' may only end the pattern, as in KIND/* or KIND/PREFIX*")) {
            try mint(read: ["doc/a*b"])
        }
        #expect(throws: TokenMinterError.self) { try mint(ttl: .zero) }
        #expect(throws: TokenMinterError(code: .emptySecret, message: "HS256 needs a secret; the secret is empty")) {
            try TokenMinter(secret: [])
        }
    }

    static let ttls: [(String, Duration)] = [
        ("90s", .seconds(90)), ("30m", .seconds(1_800)), ("1h", .seconds(3_600)), ("2d", .seconds(172_800)),
        ("1s", .seconds(1)), ("366d", .seconds(366 * 86_400)), ("0090s", .seconds(90)),
    ]

    @Test(arguments: ttls)
    func parseTTLReadsANumberAndAUnit(_ text: String, _ expected: Duration) throws {
        #expect(try TokenMinter.parseTTL(text) == expected)
    }

    @Test(arguments: ["", "h", "1", "1x", "1H", "-1h", "+1h", "1.5h", " 1h", "1h ", "1h30m", "0s", "367d", "99999999999d", "１h"])
    func parseTTLRefusesAnythingElseWithAClearError(_ text: String) {
        do {
            _ = try TokenMinter.parseTTL(text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.code == .invalidTTL)
            #expect(error.message.hasPrefix("'\(text)' "))
            #expect(error.message.hasSuffix("use a positive whole number followed by s, m, h or d, e.g. 90s, 30m, 1h, 2d"))
        }
    }

    static func base64URLDecoded(_ text: String) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return [UInt8](Data(base64Encoded: base64) ?? Data())
    }
}
