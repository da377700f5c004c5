/// The framing of an instance channel's messages: netstrings, `LEN:BYTES` one after the
/// other (the commit scripts' `envelope`, and presence notices after their `P`).
enum Netstrings {
    /// The parts of `bytes`; nil when it is not a whole list of netstrings.
    static func parts(of bytes: ArraySlice<UInt8>) -> [[UInt8]]? {
        var parts: [[UInt8]] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")),
                  let length = Int(String(decoding: bytes[index..<colon], as: UTF8.self)),
                  length >= 0, colon + 1 + length <= bytes.endIndex
            else { return nil }
            parts.append(Array(bytes[(colon + 1)..<(colon + 1 + length)]))
            index = colon + 1 + length
        }
        return parts
    }

    /// `parts` framed one after the other.
    static func bytes(_ parts: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            out += Array(String(part.count).utf8) + [UInt8(ascii: ":")] + part
        }
        return out
    }
}
