extension ParserCursor {
    /// Parses a string starting at its opening quote.
    ///
    /// The fast path scans a run without escapes and makes the `String` straight from the
    /// input bytes; the first backslash switches to copying into `scratch`.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        let stop = try scanPlainRun(from: start)
        if bytes[stop] == UInt8(ascii: "\"") {
            position = stop + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
        }
        position = stop
        return try parseEscapedString(from: start)
    }

    /// Checks a string starting at its opening quote as `parseString()` does, without making
    /// it (one with escapes is made, the rare case).
    mutating func skipString() throws(JSONParseError) {
        position += 1
        let start = position
        let stop = try scanPlainRun(from: start)
        if bytes[stop] == UInt8(ascii: "\"") {
            position = stop + 1
            return
        }
        position = stop
        _ = try parseEscapedString(from: start)
    }

    /// Checks the bytes of a string from `start` up to its closing quote or its first
    /// backslash, and returns where that is.
    @inline(__always)
    private mutating func scanPlainRun(from start: Int) throws(JSONParseError) -> Int {
        // Non-empty: it holds at least the opening quote.
        let base = bytes.baseAddress!
        let end = bytes.count
        var index = start
        while index < end {
            if index + 8 <= end, ByteScan.isPlainWord(at: base + index, nonASCII: true) {
                index += 8
                continue
            }
            let byte = base[index]
            if byte < 0x80, byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return index
            }
            position = index
            if byte < 0x20 {
                throw controlCharacter(byte)
            }
            try skipUTF8Sequence()
            index = position
        }
        throw failure(.unexpectedEndOfInput, "unexpected end of input inside a string", at: bytes.count)
    }

    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        let base = bytes.baseAddress!
        var runStart = start
        while position < bytes.count {
            if position + 8 <= bytes.count, ByteScan.isPlainWord(at: base + position, nonASCII: true) {
                position += 8
                continue
            }
            let byte = base[position]
            if byte < 0x80, byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            if byte >= 0x80 {
                try skipUTF8Sequence()
                continue
            }
            if byte < 0x20 {
                throw controlCharacter(byte)
            }
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart))
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            try parseEscape()
            runStart = position
        }
        throw failure(.unexpectedEndOfInput, "unexpected end of input inside a string", at: bytes.count)
    }

    /// Decodes one escape sequence starting at its backslash into `scratch`.
    private mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else {
            throw failure(.unexpectedEndOfInput, "unexpected end of input inside an escape sequence")
        }
        let replacement: UInt8
        switch bytes[position] {
        case UInt8(ascii: "\""): replacement = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): replacement = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): replacement = UInt8(ascii: "/")
        case UInt8(ascii: "b"): replacement = 0x08
        case UInt8(ascii: "f"): replacement = 0x0C
        case UInt8(ascii: "n"): replacement = 0x0A
        case UInt8(ascii: "r"): replacement = 0x0D
        case UInt8(ascii: "t"): replacement = 0x09
        case UInt8(ascii: "u"):
            position += 1
            try appendUnicodeEscape(escapeStart: escapeStart)
            return
        default:
            throw failure(
                .invalidEscape,
                "invalid escape: backslash followed by \(describeByte(at: position)); allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
                at: escapeStart
            )
        }
        scratch.append(replacement)
        position += 1
    }

    /// Decodes the four hex digits after `\u` (and a following low surrogate escape when
    /// the first is a high surrogate) and appends the scalar as UTF-8.
    private mutating func appendUnicodeEscape(escapeStart: Int) throws(JSONParseError) {
        let unit = try readHexQuad(escapeStart: escapeStart)
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            let lowStart = position
            guard position + 1 < bytes.count,
                  bytes[position] == UInt8(ascii: "\\"),
                  bytes[position + 1] == UInt8(ascii: "u")
            else {
                throw failure(.loneSurrogate, "high surrogate \\u\(hex(unit)) is not followed by a low surrogate escape", at: escapeStart)
            }
            position += 2
            let low = try readHexQuad(escapeStart: lowStart)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw failure(.loneSurrogate, "high surrogate \\u\(hex(unit)) is followed by \\u\(hex(low)), not a low surrogate", at: escapeStart)
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw failure(.loneSurrogate, "low surrogate \\u\(hex(unit)) without a preceding high surrogate", at: escapeStart)
        default:
            scalarValue = UInt32(unit)
        }
        // Every value here is a valid scalar: surrogates were handled above.
        let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
        UTF8.encode(scalar) { scratch.append($0) }
    }

    private mutating func readHexQuad(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input inside a \\u escape")
            }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw failure(.invalidEscape, "\\u escape needs four hex digits, found \(describeByte(at: position))", at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence at `position` (RFC 3629: no overlong forms,
    /// no surrogates, nothing above U+10FFFF) and moves past it.
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        let lead = bytes[position]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default:
            throw invalidUTF8()
        }
        guard position + length <= bytes.count else { throw invalidUTF8() }
        guard secondRange.contains(bytes[position + 1]) else { throw invalidUTF8() }
        for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
            throw invalidUTF8()
        }
        position += length
    }

    private func invalidUTF8() -> JSONParseError {
        failure(.invalidUTF8, "invalid UTF-8 byte sequence starting with \(describeByte(at: position))")
    }

    private func controlCharacter(_ byte: UInt8) -> JSONParseError {
        failure(.controlCharacter, "raw control character U+00\(hex(UInt16(byte)).suffix(2)) in a string; write it as an escape")
    }

    private func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
