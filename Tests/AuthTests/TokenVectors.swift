import ReactorHubAuth
import Foundation
import ReactorHubJSON
import Testing

/// One token made by PyJWT (Vectors/make_vectors.py) and what the verifier must say of it.
struct TokenVector: Sendable, CustomTestStringConvertible {
    struct Check: Sendable {
        let right: Right
        let reactor: String
        let allowed: Bool
    }

    let name: String
    let alg: String
    let audience: String?
    let issuer: String?
    let token: String
    let reason: TokenRefusal.Reason?
    let subject: String?
    let expiresAt: Double?
    let issuedAt: Double?
    let read: [String]
    let act: [String]
    let checks: [Check]

    var testDescription: String { name }

    init(_ value: JSONValue) throws {
        func string(_ key: String) throws -> String {
            guard let string = value[key]?.stringValue else { throw VectorFileError("vector member \(key) is missing") }
            return string
        }
        name = try string("name")
        alg = try string("alg")
        token = try string("token")
        audience = value["audience"]?.stringValue
        issuer = value["issuer"]?.stringValue
        if value["valid"]?.boolValue == true {
            reason = nil
        } else {
            let text = try string("reason")
            guard let reason = TokenRefusal.Reason(rawValue: text) else { throw VectorFileError("unknown reason \(text)") }
            self.reason = reason
        }
        subject = value["sub"]?.stringValue
        expiresAt = value["exp"]?.doubleValue
        issuedAt = value["iat"]?.doubleValue
        read = value["read"]?.arrayValue?.compactMap(\.stringValue) ?? []
        act = value["act"]?.arrayValue?.compactMap(\.stringValue) ?? []
        checks = try (value["checks"]?.arrayValue ?? []).map { check in
            guard let right = check["right"]?.stringValue.flatMap(Right.init(rawValue:)),
                let reactor = check["reactor"]?.stringValue, let allowed = check["allowed"]?.boolValue
            else { throw VectorFileError("a check of \(value["name"]?.stringValue ?? "a vector") is incomplete") }
            return Check(right: right, reactor: reactor, allowed: allowed)
        }
    }
}

struct VectorFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A vectors file: the fixed clock and keys, and the vectors.
struct VectorFile: Sendable {
    let now: Date
    let leewaySeconds: Int
    let secret: [UInt8]
    let rsaPublicKey: String
    let ecPublicKey: String
    let vectors: [TokenVector]

    /// The file checked in beside the tests.
    static let checkedInURL = Python.vectorsFolder.appendingPathComponent("tokens.json")

    /// The checked-in vectors, or none when the file cannot be read (`loadsCheckedInVectors` then fails).
    static let checkedIn: VectorFile? = try? VectorFile(contentsOf: checkedInURL)

    init(contentsOf url: URL) throws {
        let document = try JSONValue(parsing: [UInt8](Data(contentsOf: url)))
        guard let now = document["now"]?.doubleValue, let leeway = document["leeway"]?.intValue,
            let secret = document["secret"]?.stringValue,
            let rsaFile = document["rsaPublicKey"]?.stringValue, let ecFile = document["ecPublicKey"]?.stringValue,
            let vectors = document["vectors"]?.arrayValue
        else { throw VectorFileError("\(url.path) lacks now, leeway, secret, keys or vectors") }
        self.now = Date(timeIntervalSince1970: now)
        leewaySeconds = leeway
        self.secret = Array(secret.utf8)
        rsaPublicKey = try String(contentsOf: Python.vectorsFolder.appendingPathComponent(rsaFile), encoding: .utf8)
        ecPublicKey = try String(contentsOf: Python.vectorsFolder.appendingPathComponent(ecFile), encoding: .utf8)
        self.vectors = try vectors.map(TokenVector.init)
    }

    /// The verifier a vector is checked with: its algorithm's key, its audience and issuer.
    func verifier(for vector: TokenVector) throws -> TokenVerifier {
        let algorithm: TokenAlgorithm
        switch vector.alg {
        case "HS256": algorithm = .hs256(secret: secret)
        case "RS256": algorithm = .rs256(publicKeyPEM: rsaPublicKey)
        case "ES256": algorithm = .es256(publicKeyPEM: ecPublicKey)
        default: throw VectorFileError("unknown alg \(vector.alg)")
        }
        return try TokenVerifier(algorithm: algorithm, audience: vector.audience, issuer: vector.issuer, leewaySeconds: leewaySeconds)
    }

    /// Verifies `vector` and expects exactly its outcome: the refusal reason, or the
    /// subject, times, patterns and every rights check.
    func expectOutcome(of vector: TokenVector, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try verifier(for: vector).verify(vector.token, now: now)
        switch (result, vector.reason) {
        case (.failure(let refusal), let reason?):
            #expect(refusal.reason == reason, "\(vector.name): \(refusal)", sourceLocation: sourceLocation)
            #expect(!refusal.message.isEmpty, sourceLocation: sourceLocation)
        case (.failure(let refusal), nil):
            Issue.record("\(vector.name) should verify, was refused: \(refusal)", sourceLocation: sourceLocation)
        case (.success(let token), let reason?):
            Issue.record("\(vector.name) should be refused (\(reason.rawValue)), verified as \(token.subject)", sourceLocation: sourceLocation)
        case (.success(let token), nil):
            #expect(token.subject == vector.subject, sourceLocation: sourceLocation)
            #expect(token.subject.unicodeScalars.elementsEqual(vector.subject?.unicodeScalars ?? "".unicodeScalars), sourceLocation: sourceLocation)
            #expect(token.expiresAt.timeIntervalSince1970 == vector.expiresAt, sourceLocation: sourceLocation)
            #expect(token.issuedAt?.timeIntervalSince1970 == vector.issuedAt, sourceLocation: sourceLocation)
            #expect(token.rights.read.map(\.text) == vector.read, sourceLocation: sourceLocation)
            #expect(token.rights.act.map(\.text) == vector.act, sourceLocation: sourceLocation)
            for check in vector.checks {
                #expect(
                    token.rights.allows(check.right, reactor: check.reactor) == check.allowed,
                    "\(vector.name): \(check.right) \(check.reactor) should be \(check.allowed ? "allowed" : "refused")",
                    sourceLocation: sourceLocation
                )
            }
        }
    }
}
