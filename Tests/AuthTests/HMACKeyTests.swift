@testable import ReactorHubAuth
import Dispatch
import Foundation
import Synchronization
import Testing

/// The keyed, reused HMAC contexts that verify HS256 tokens, against RFC 4231's test
/// vectors and libcrypto's one-shot HMAC.
@Suite struct HMACKeyTests {
    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// RFC 4231 §4.2, §4.3 and §4.7 (a key longer than SHA-256's block): key, data, MAC.
    static let vectors: [(key: [UInt8], data: [UInt8], mac: String)] = [
        (Array(repeating: 0x0B, count: 20), Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            Array(repeating: 0xAA, count: 131),
            Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test func eachRFC4231VectorComesOutTheSameThreeTimesOverFromOneKey() throws {
        for vector in Self.vectors {
            let key = try #require(HMACKey(secret: vector.key))
            for _ in 0..<3 {
                #expect(key.mac(vector.data) == Self.bytes(hex: vector.mac))
            }
            #expect(HMACSHA256.mac(vector.data, key: vector.key) == Self.bytes(hex: vector.mac))
        }
    }

    /// Messages of every length from 0 to 200 bytes, one after another on reused contexts,
    /// each equal to the one-shot HMAC; a MAC with one bit flipped is refused.
    @Test func reusedContextsAgreeWithTheOneShotHMAC() throws {
        let secret = Array("a secret of thirty-two bytes, at least".utf8)
        let key = try #require(HMACKey(secret: secret))
        for length in 0...200 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length) }
            let expected = try #require(HMACSHA256.mac(message, key: secret))
            #expect(key.mac(message) == expected, "message of \(length) bytes")
            #expect(key.isValid(expected, of: message))
            var flipped = expected
            flipped[length % flipped.count] ^= 0x01
            #expect(!key.isValid(flipped, of: message))
            #expect(!key.isValid(Array(expected.dropLast()), of: message))
        }
    }

    /// More checks at once than contexts are kept: each still gets its own, and all agree.
    @Test func checksFromManyThreadsAtOnceAllAgree() throws {
        let secret = Array("another secret of thirty-two bytes".utf8)
        let key = try #require(HMACKey(secret: secret))
        let threads = HMACKey.keptContexts * 2
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<200 {
                let message = Array("thread \(thread) round \(round)".utf8)
                if key.mac(message) != HMACSHA256.mac(message, key: secret) {
                    mismatches.withLock { $0 += 1 }
                }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }
}
