@testable import ReactorHubAuth
import Foundation
import Testing

@Suite struct Base64URLTests {
    func decode(_ text: String) -> [UInt8]? {
        Base64URL.decode(Substring(text).utf8)
    }

    @Test func roundTripsEveryLengthAndByte() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            #expect(decode(Base64URL.encode(bytes)) == bytes)
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 251))
        }
        let all = (0...255).map(UInt8.init)
        #expect(decode(Base64URL.encode(all)) == all)
    }

    @Test func encodesAsFoundationDoesWithoutPaddingAndWithTheURLAlphabet() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x3E]
        let foundation = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(Base64URL.encode(bytes) == foundation)
        #expect(Base64URL.encode(bytes) == "-_-_AD4")
    }

    @Test(arguments: ["QQ==", "QQ=", "Q", "QUJDR", "QU+D", "QU/D", "QU D", "QUJD\n", "QR", "QUJ", "Q\u{0}"])
    func refusesNonCanonicalText(_ text: String) {
        #expect(decode(text) == nil)
    }

    @Test func acceptsCanonicalText() {
        #expect(decode("") == [])
        #expect(decode("QQ") == Array("A".utf8))
        #expect(decode("QUI") == Array("AB".utf8))
        #expect(decode("QUE") == Array("AA".utf8))
        #expect(decode("QUJD") == Array("ABC".utf8))
    }
}
