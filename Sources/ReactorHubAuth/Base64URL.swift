/// Base64url without padding (RFC 7515 §2, RFC 4648 §5), decoded strictly.
///
/// Only the canonical encoding of some bytes is accepted: no `=` padding, nothing outside
/// `A-Z a-z 0-9 - _`, no length of 1 modulo 4 (no byte encodes to one character), and zero
/// bits after the last byte. So each byte string has exactly one accepted spelling, and a
/// token cannot be altered into another text that verifies the same.
enum Base64URL {
    /// Decodes `text`, or nil when it is not canonical unpadded base64url.
    static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        let sextets = Self.sextets
        for character in text {
            let sextet = sextets[Int(character)]
            guard sextet != invalid else { return nil }
            accumulator = (accumulator << 6) | UInt32(sextet)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits (2 or 4) are padding inside the last character; they must be zero.
        guard accumulator == 0 else { return nil }
        return output
    }

    /// Encodes `bytes` without padding.
    static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((accumulator >> UInt32(bits)) & 0x3F)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 {
            output.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Marks a byte outside the alphabet in `sextets`.
    private static let invalid: UInt8 = 0xFF

    /// The value of each byte as a base64url digit, or `invalid`.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()
}
