extension JSONWriter {
    /// Writes `value` in the canonical form of RFC 8785 (the JSON Canonicalization Scheme):
    /// no whitespace, object members sorted by their keys' UTF-16 code units, strings
    /// escaped as `writeString` does (which is the scheme's rule), and every number as the
    /// IEEE 754 double nearest to it, written as ECMAScript's `Number.prototype.toString`
    /// writes it (`writeECMAScriptNumber`): `1` and `1.0` both become `1`, and an integer
    /// past 2^53 its nearest double.
    ///
    /// Checksums hash this form (PROTOCOL.md "Checksums"), so that any client can compute
    /// them from the state it holds, whatever its JSON library writes.
    public mutating func writeCanonical(_ value: JSONValue) {
        switch value {
        case .null:
            writeRaw("null")
        case .bool(let flag):
            writeBool(flag)
        case .int(let number):
            writeECMAScriptNumber(Double(number))
        case .double(let number):
            writeECMAScriptNumber(number)
        case .string(let text):
            writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeCanonical(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in Self.canonicalOrder(object).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key)
                bytes.append(UInt8(ascii: ":"))
                writeCanonical(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The members of `object` sorted by their keys as arrays of UTF-16 code units (RFC
    /// 8785 section 3.2.3). UTF-8 bytes sort the same way except where a character past
    /// U+FFFF meets one from U+E000 to U+FFFF, so keys are compared as UTF-16 only there.
    static func canonicalOrder(_ object: JSONObject) -> [JSONObject.Element] {
        var members = Array(object)
        guard members.count > 1 else { return members }
        members.sort { lhs, rhs in
            precedesInUTF16(lhs.key, rhs.key)
        }
        return members
    }

    /// Whether `lhs` sorts before `rhs` as UTF-16 code units.
    static func precedesInUTF16(_ lhs: String, _ rhs: String) -> Bool {
        var lhsScalars = lhs.unicodeScalars.makeIterator()
        var rhsScalars = rhs.unicodeScalars.makeIterator()
        while true {
            guard let left = lhsScalars.next() else { return rhsScalars.next() != nil }
            guard let right = rhsScalars.next() else { return false }
            if left == right { continue }
            return utf16Lead(left) < utf16Lead(right) || (utf16Lead(left) == utf16Lead(right) && left.value < right.value)
        }
    }

    /// The first UTF-16 code unit of `scalar`: itself below U+10000, else its high surrogate.
    private static func utf16Lead(_ scalar: Unicode.Scalar) -> UInt32 {
        scalar.value < 0x10000 ? scalar.value : 0xD800 + ((scalar.value - 0x10000) >> 10)
    }

    /// Writes a double as ECMAScript's `Number.prototype.toString` (ECMA-262 section
    /// 6.1.6.1.20, "Number::toString") writes it, which is what RFC 8785 asks for: the
    /// shortest digits that read back as the same double (ties: the closer one), as an
    /// integer up to 21 digits (`100`, `1e+21`), a decimal fraction down to 1e-6
    /// (`0.000001`, `1e-7`), otherwise with an exponent (`1.5e+300`); `-0` is `0`.
    /// NaN and infinities have no JSON form and are written as `null`.
    public mutating func writeECMAScriptNumber(_ value: Double) {
        guard value.isFinite else {
            writeRaw("null")
            return
        }
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        // Integers below 2^53 are exact: their decimal digits are the shortest ones.
        if magnitude < 9_007_199_254_740_992, magnitude == magnitude.rounded(.towardZero) {
            writeInt(Int(magnitude))
            return
        }
        let (digits, point) = Self.shortestDigits(magnitude)
        writeECMAScriptLayout(digits: digits, point: point)
    }

    /// The shortest round-trip decimal digits of a positive finite double (no leading or
    /// trailing zeros) and `point`, the position of the decimal point: the value is
    /// 0.DIGITS × 10^point. Read from Swift's `description`, which prints exactly those
    /// digits (`1e-05`, `0.001`, `1.2345e+20`, `123.5`).
    static func shortestDigits(_ magnitude: Double) -> (digits: [UInt8], point: Int) {
        let text = Array(magnitude.description.utf8)
        var mantissa = text[...]
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            mantissa = text[..<e]
            exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(mantissa.count)
        var point = mantissa.count
        for byte in mantissa {
            if byte == UInt8(ascii: ".") {
                point = digits.count
            } else {
                digits.append(byte)
            }
        }
        point += exponent
        let leading = digits.prefix { $0 == UInt8(ascii: "0") }.count
        digits.removeFirst(leading)
        point -= leading
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
        }
        return (digits, point)
    }

    /// Lays out the digits of 0.DIGITS × 10^point as Number::toString does (n is `point`,
    /// k the number of digits).
    private mutating func writeECMAScriptLayout(digits: [UInt8], point: Int) {
        let count = digits.count
        if count <= point && point <= 21 {
            bytes.append(contentsOf: digits)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: point - count))
        } else if 0 < point && point <= 21 {
            bytes.append(contentsOf: digits[..<point])
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: digits[point...])
        } else if -6 < point && point <= 0 {
            writeRaw("0.")
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -point))
            bytes.append(contentsOf: digits)
        } else {
            bytes.append(digits[0])
            if count > 1 {
                bytes.append(UInt8(ascii: "."))
                bytes.append(contentsOf: digits[1...])
            }
            let exponent = point - 1
            bytes.append(UInt8(ascii: "e"))
            bytes.append(UInt8(ascii: exponent < 0 ? "-" : "+"))
            writeInt(abs(exponent))
        }
    }
}

extension JSONValue {
    /// The value in RFC 8785 canonical form, UTF-8 (`JSONWriter.writeCanonical`).
    public func canonicalized() -> [UInt8] {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(256)
        writer.writeCanonical(self)
        return writer.bytes
    }
}
