import ReactorHubAuth
import Foundation
import ReactorHubEngine
import ReactorHubWebSocketServer

extension Configuration {
    /// The hub's auth policy from the `auth` section, or nil without one. The key file is
    /// read and checked here, so a bad key stops the start naming `auth.publicKeyFile`.
    func authPolicy() throws(ConfigurationError) -> AuthPolicy? {
        guard let auth else { return nil }
        let algorithm: TokenAlgorithm
        if let secret = auth.hs256Secret {
            algorithm = .hs256(secret: Array(secret.utf8))
        } else if let file = auth.publicKeyFile {
            guard let pem = FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) }) else {
                throw ConfigurationError("auth.publicKeyFile: cannot read \(file)")
            }
            algorithm = pem.contains("BEGIN PUBLIC KEY") && Self.isEllipticCurve(pem) ? .es256(publicKeyPEM: pem) : .rs256(publicKeyPEM: pem)
        } else {
            throw ConfigurationError("auth: needs auth.hs256Secret (or REACTORHUB_AUTH_SECRET) or auth.publicKeyFile")
        }
        let revocations = RevocationList()
        let verifier: TokenVerifier
        do {
            verifier = try TokenVerifier(
                algorithm: algorithm, audience: auth.audience, issuer: auth.issuer,
                leewaySeconds: auth.leewaySeconds, revocations: revocations
            )
        } catch {
            let key = auth.hs256Secret != nil ? "auth.hs256Secret" : "auth.publicKeyFile"
            throw ConfigurationError("\(key): \(error.message)")
        }
        let anonymous: Rights
        do {
            anonymous = try Rights.parse(read: auth.anonymousRights.read, act: auth.anonymousRights.act)
        } catch {
            throw ConfigurationError("auth.anonymousRights: \(error.message)")
        }
        return AuthPolicy(
            verifier: JWTIdentityVerifier(verifier: verifier, revocations: revocations), required: auth.required,
            timeout: .milliseconds(auth.timeoutMs), anonymousRights: anonymous
        )
    }

    /// Whether a PEM public key is an EC key (ES256) rather than RSA (RS256).
    private static func isEllipticCurve(_ pem: String) -> Bool {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body) else { return false }
        // id-ecPublicKey, 1.2.840.10045.2.1, in the SubjectPublicKeyInfo's algorithm.
        let ecOID: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        return Array(der).windows(ecOID.count).contains(where: { $0.elementsEqual(ecOID) })
    }

    /// The TLS files of the transport, checked: both readable, and the key the
    /// certificate's.
    func tlsFiles() throws(ConfigurationError) -> TransportConfiguration.TLSFiles? {
        guard let tls, let cert = tls.certFile, let key = tls.keyFile else { return nil }
        do {
            try CertificateCheck.verify(certificateFile: cert, privateKeyFile: key)
        } catch {
            throw ConfigurationError("\(error.key): \(error.message)")
        }
        return TransportConfiguration.TLSFiles(certFile: cert, keyFile: key)
    }
}

extension Array {
    fileprivate func windows(_ size: Int) -> [ArraySlice<Element>] {
        guard count >= size else { return [] }
        return (0...(count - size)).map { self[$0..<($0 + size)] }
    }
}
