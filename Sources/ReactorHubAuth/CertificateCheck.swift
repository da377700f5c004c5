internal import CCrypto
import Foundation

/// Checks a TLS certificate and private key before the server uses them, so that a bad
/// pair stops the start with a sentence naming the file, instead of a TLS failure later.
public enum CertificateCheck {
    /// Why the pair is not usable: `key` names the configuration key at fault.
    public struct Failure: Error, Sendable, Equatable {
        /// `tls.certFile` or `tls.keyFile`.
        public var key: String
        /// One sentence.
        public var message: String
    }

    /// Throws unless `certificateFile` holds a PEM certificate and `privateKeyFile` the PEM
    /// private key that matches it.
    public static func verify(certificateFile: String, privateKeyFile: String) throws(Failure) {
        guard let certificatePEM = FileManager.default.contents(atPath: certificateFile) else {
            throw Failure(key: "tls.certFile", message: "cannot read \(certificateFile)")
        }
        guard let keyPEM = FileManager.default.contents(atPath: privateKeyFile) else {
            throw Failure(key: "tls.keyFile", message: "cannot read \(privateKeyFile)")
        }
        guard let certificate = read(certificatePEM, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw Failure(key: "tls.certFile", message: "\(certificateFile) holds no PEM certificate")
        }
        defer { X509_free(certificate) }
        guard let key = read(keyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw Failure(key: "tls.keyFile", message: "\(privateKeyFile) holds no PEM private key (or it is encrypted)")
        }
        defer { EVP_PKEY_free(key) }
        guard X509_check_private_key(certificate, key) == 1 else {
            ERR_clear_error()
            throw Failure(key: "tls.keyFile", message: "\(privateKeyFile) is not the private key of the certificate \(certificateFile)")
        }
    }

    private static func read<T>(_ pem: Data, _ parse: (OpaquePointer) -> T?) -> T? {
        pem.withUnsafeBytes { bytes -> T? in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            let value = parse(bio)
            ERR_clear_error()
            return value
        }
    }
}
