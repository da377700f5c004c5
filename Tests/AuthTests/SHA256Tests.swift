import ReactorHubAuth
import ReactorHubProtocol
import Testing

/// The two SHA-256s behind state checksums: libcrypto's (the daemon's) and the portable
/// one (the Swift client's), against FIPS 180-4's examples and each other.
@Suite struct SHA256Tests {
    func hex(_ digest: (UnsafeRawBufferPointer) -> [UInt8], _ bytes: [UInt8]) -> String {
        StateChecksum.hex(bytes.withUnsafeBytes(digest))
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func bothGiveTheStandardsDigests(text: String, expected: String) {
        #expect(hex(LibCryptoSHA256.digest, Array(text.utf8)) == expected)
        #expect(hex(SHA256.digest, Array(text.utf8)) == expected)
    }

    @Test func bothAgreeOnEveryLengthAroundTheBlockAndOnALongInput() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...200) + [1 << 17, 100_003] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(hex(LibCryptoSHA256.digest, bytes) == hex(SHA256.digest, bytes), "length \(length)")
        }
    }

    @Test func aMillionAs() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(SHA256.digest, bytes) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
