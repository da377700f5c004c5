extension ParserCursor {
    /// Parses a number by the RFC 8259 grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    ///
    /// Integers without fraction or exponent that fit an `Int` become `.int`; everything
    /// else becomes `.double`, exactly rounded: the common short decimals take Clinger's
    /// fast path (an exact mantissa times an exact power of ten), the rest the standard
    /// library's correctly rounded conversion.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < bytes.count else {
            throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a digit after '-'")
        }

        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var isInteger = true

        let first = bytes[position]
        if first == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw failure(.invalidNumber, "leading zeros are not allowed in numbers", at: position - 1)
            }
        } else if isDigit(first) {
            accumulateDigits(into: &mantissa, significant: &significantDigits, dropped: &exponent)
        } else {
            throw failure(.invalidNumber, "expected a digit after '-', found \(describeByte(at: position))")
        }

        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                if position >= bytes.count {
                    throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a digit after '.'")
                }
                throw failure(.invalidNumber, "expected a digit after '.', found \(describeByte(at: position))")
            }
            let fractionStart = position
            var dropped = 0
            accumulateDigits(into: &mantissa, significant: &significantDigits, dropped: &dropped)
            exponent -= (position - fractionStart) - dropped
        }

        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            var exponentNegative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                if position >= bytes.count {
                    throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a digit in the exponent")
                }
                throw failure(.invalidNumber, "expected a digit in the exponent, found \(describeByte(at: position))")
            }
            var explicit = 0
            while position < bytes.count, isDigit(bytes[position]) {
                // Saturate: anything this large is zero or out of range anyway.
                explicit = min(explicit * 10 + Int(bytes[position] - UInt8(ascii: "0")), 1_000_000)
                position += 1
            }
            exponent += exponentNegative ? -explicit : explicit
        }

        if isInteger, exponent == 0, significantDigits <= 19 {
            if negative, mantissa <= UInt64(Int.max) + 1 {
                return .int(Int(truncatingIfNeeded: 0 &- mantissa))
            }
            if !negative, mantissa <= UInt64(Int.max) {
                return .int(Int(mantissa))
            }
        }
        if significantDigits <= 19, mantissa <= 1 << 53, let value = Self.fastPath(mantissa, exponent) {
            return .double(negative ? -value : value)
        }
        return .double(try slowPath(from: start))
    }

    /// Reads digits into `mantissa` while it has at most 19 significant digits; later
    /// digits are counted in `dropped` (they scale the value but no longer fit).
    private mutating func accumulateDigits(into mantissa: inout UInt64, significant: inout Int, dropped: inout Int) {
        while position < bytes.count {
            let byte = bytes[position]
            guard isDigit(byte) else { return }
            if significant < 19 {
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if mantissa != 0 { significant += 1 }
            } else {
                significant += 1
                dropped += 1
            }
            position += 1
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Exact when the mantissa and the power of ten are both exact doubles: one rounding.
    private static func fastPath(_ mantissa: UInt64, _ exponent: Int) -> Double? {
        guard exponent >= -22, exponent <= 22 else { return nil }
        let value = Double(mantissa)
        return exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    private func slowPath(from start: Int) throws(JSONParseError) -> Double {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure(.invalidNumber, "number \(text) is beyond the range of a double", at: start)
        }
        return value
    }
}
