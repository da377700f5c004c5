// token: the JWT verifier with a fixed HS256 secret, and the rights patterns.
//
// The first byte chooses what the rest is:
//   0  a token, verified as it is;
//   1  a header and a payload (JSON, one per line) that the target signs with the secret,
//      so that the claims and `rh` are reached (a fuzzer cannot forge an HMAC);
//   2  a rights pattern and a reactor address (one per line).
// Never crashes. An accepted token verifies again to the same identity, with a subject of
// 1 to 128 scalars, an expiry after now minus the leeway, patterns that read back from
// their own text; with one byte of its signature altered it is refused. A pattern that
// parses reads back from its text to the same pattern, and matches only well-formed names.
import Foundation
import ReactorHubProtocol
import FuzzSupport
@testable import ReactorHubAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToken(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(data, size).selector else { return 0 }
    let parts = FuzzInput(rest.baseAddress?.assumingMemoryBound(to: UInt8.self), rest.count).split()
    switch mode % 3 {
    case 0:
        check(String(decoding: rest, as: UTF8.self))
    case 1:
        let header = parts?.head ?? Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)
        let payload = parts?.tail ?? Array(rest)
        check(Fixture.signed(header: header, payload: payload))
    default:
        let pattern = String(decoding: parts?.head ?? Array(rest), as: UTF8.self)
        let address = String(decoding: parts?.tail ?? [], as: UTF8.self)
        checkPattern(pattern, address)
    }
    return 0
}

/// Verifies `token` and checks an accepted one.
func check(_ token: String) {
    guard case .success(let verified) = Fixture.verifier.verify(token, now: Fixture.now) else { return }
    let again = Fixture.verifier.verify(token, now: Fixture.now)
    require((try? again.get()) == verified, "an accepted token verified differently the second time")
    let scalars = verified.subject.unicodeScalars.count
    require((1...128).contains(scalars), "accepted a subject of \(scalars) scalars")
    require(
        verified.expiresAt.timeIntervalSince1970 + Double(Fixture.verifier.leewaySeconds) > Fixture.now.timeIntervalSince1970,
        "accepted a token that expired at \(verified.expiresAt)"
    )
    for pattern in verified.rights.read + verified.rights.act {
        require((try? RightsPattern(pattern.text)) == pattern, "pattern '\(pattern)' does not read back from its text")
    }
    var altered = Array(token.utf8)
    guard let dot = altered.lastIndex(of: UInt8(ascii: ".")), dot + 1 < altered.count else {
        require(false, "accepted a token without a signature")
        return
    }
    altered[dot + 1] = altered[dot + 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    if case .success = Fixture.verifier.verify(String(decoding: altered, as: UTF8.self), now: Fixture.now) {
        require(false, "a token with an altered signature was accepted")
    }
}

/// Parses `text` as a pattern and matches it against `address`.
func checkPattern(_ text: String, _ address: String) {
    guard let pattern = try? RightsPattern(text) else { return }
    require((try? RightsPattern(pattern.text)) == pattern, "pattern '\(text)' does not read back from its text")
    guard let (kind, id) = Rights.split(address) else { return }
    for subject in [nil, "alice", address, kind, id] where pattern.matches(kind: kind, id: id, subject: subject) {
        require(ReactorAddress.isValidKind(kind.utf8) && ReactorAddress.isValidID(id.utf8), "'\(text)' matches the malformed address '\(address)'")
    }
    let rights = Rights(read: [pattern], act: [pattern], subject: "alice")
    require(rights.allows(.read, reactor: address) == pattern.matches(kind: kind, id: id, subject: "alice"), "Rights and its pattern disagree on '\(address)'")
}

/// The verifier and the time the vectors of Tests/AuthTests/Vectors/tokens.json use.
enum Fixture {
    static let secret = Array("reactorhub-test-secret-0123456789abcdef".utf8)
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let verifier: TokenVerifier = {
        do {
            return try TokenVerifier(algorithm: .hs256(secret: secret))
        } catch {
            fatalError("cannot make the verifier: \(error)")
        }
    }()

    /// A compact JWS of these exact header and payload bytes, signed with the secret.
    static func signed(header: [UInt8], payload: [UInt8]) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        guard let mac = HMACSHA256.mac(Array(signingInput.utf8), key: secret) else {
            fatalError("HMAC-SHA256 failed")
        }
        return signingInput + "." + Base64URL.encode(mac)
    }
}
