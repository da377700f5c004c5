extension JSONWriter {
    /// Writes a string in quotes, escaping `"`, `\` and every control character below
    /// U+0020 (`\n`, `\t`, `\r`, `\b`, `\f`, else `\u00XX`); everything else, including
    /// non-ASCII text and U+2028/U+2029, is written as raw UTF-8.
    public mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes the escaped contents of a string (without quotes), copying unescaped runs whole.
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        var runStart = 0
        var index = 0
        while index < utf8.count {
            if index + 8 <= utf8.count, ByteScan.isPlainWord(at: base + index, nonASCII: false) {
                index += 8
                continue
            }
            let byte = base[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            let escapeAt = index - 1
            if runStart < escapeAt {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<escapeAt]))
            }
            runStart = index
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                writeRaw("u00")
                bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
                bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
    }

    /// Writes an integer in decimal.
    public mutating func writeInt(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        writeDigits(value.magnitude)
    }

    private mutating func writeDigits(_ magnitude: UInt) {
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        // 20 digits hold any UInt64; fill from the end of a stack buffer.
        var remaining = magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Writes a double in its shortest form that reads back as the same double (`3.5`,
    /// `0.1`, `1e-05`), always with a fraction or an exponent so it reads back as a double
    /// (`1.0`, never `1`).
    ///
    /// NaN and infinities have no JSON form and are written as `null`, as JavaScript's
    /// `JSON.stringify` does; `JSONValueEncoder` refuses them before they get here.
    public mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeRaw("null")
            return
        }
        // Integral values below 2^53 print as "N.0" (as `description` would), without a String.
        if value.magnitude < 9_007_199_254_740_992, value == value.rounded(.towardZero) {
            if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
            writeDigits(UInt(value.magnitude))
            writeRaw(".0")
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }
}
