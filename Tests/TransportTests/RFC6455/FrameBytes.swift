/// Client frames written byte by byte, for tests that feed the frame checks without
/// sockets.
enum FrameBytes {
    static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    /// A frame: FIN (unless `fin` is false), `opcode`, masked with `key` unless `masked`
    /// is false; `reserved` sets RSV bits (0x70).
    static func frame(
        _ opcode: UInt8, _ payload: [UInt8] = [], fin: Bool = true, masked: Bool = true, reserved: UInt8 = 0
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | reserved | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
    }

    static func text(_ text: String, fin: Bool = true, masked: Bool = true) -> [UInt8] {
        frame(0x1, Array(text.utf8), fin: fin, masked: masked)
    }

    static func close(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
        frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }

    /// A masked header announcing `length` bytes with a 64-bit length field, no payload.
    static func header64(_ opcode: UInt8, length: UInt64) -> [UInt8] {
        [0x80 | opcode, 0x80 | 127] + (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) } + key
    }
}
