/// An RFC 6901 JSON Pointer: a path of reference tokens from the root of a document.
///
/// Tokens are kept unescaped (`a/b` is one token); `description` renders the pointer with
/// `~0` for `~` and `~1` for `/`. `""` is the whole document. Tokens compare by their
/// Unicode scalars, as the member names they designate do (`CodePoints`).
public struct JSONPointer: Sendable, Hashable {
    /// The unescaped reference tokens, outermost first.
    public var tokens: [String]

    /// The pointer to the whole document (`""`).
    public static let root = JSONPointer(tokens: [])

    /// Creates a pointer from unescaped tokens.
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses a pointer's text, e.g. `/items/0/title` or `/a~1b` (the member `a/b`).
    ///
    /// Throws when a non-empty pointer does not start with `/` or a `~` is not followed by
    /// `0` or `1`.
    public init(parsing text: String) throws(JSONPointerError) {
        guard !text.isEmpty else {
            self = .root
            return
        }
        // Read in place: each token is made from its bytes (a buffer only for one with an
        // escape), where copying the text and each token first took three allocations.
        var contiguous = text
        let parsed: Result<[String], JSONPointerError> = contiguous.withUTF8 { bytes in
            guard bytes[0] == UInt8(ascii: "/") else {
                return .failure(JSONPointerError(code: .missingLeadingSlash, pointer: text))
            }
            var tokens: [String] = []
            var start = 1
            for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                let token = UnsafeBufferPointer(rebasing: bytes[start..<index])
                guard let unescaped = Self.unescape(token) else {
                    return .failure(JSONPointerError(code: .invalidEscape, pointer: text))
                }
                tokens.append(unescaped)
                start = index + 1
            }
            return .success(tokens)
        }
        self.tokens = try parsed.get()
    }

    /// A token's text with `~0` and `~1` read back as `~` and `/`; nil when a `~` is
    /// followed by anything else or ends the token.
    private static func unescape(_ token: UnsafeBufferPointer<UInt8>) -> String? {
        guard token.contains(UInt8(ascii: "~")) else {
            return String(decoding: token, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.count)
        var index = 0
        while index < token.count {
            let byte = token[index]
            guard byte == UInt8(ascii: "~") else {
                bytes.append(byte)
                index += 1
                continue
            }
            switch index + 1 < token.count ? token[index + 1] : 0 {
            case UInt8(ascii: "0"): bytes.append(UInt8(ascii: "~"))
            case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/"))
            default: return nil
            }
            index += 2
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the pointer designates the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// The pointer to the container of this location, or `nil` for the root.
    public var parent: JSONPointer? {
        tokens.isEmpty ? nil : JSONPointer(tokens: Array(tokens.dropLast()))
    }

    /// The pointer one level deeper, into the member or element named `token`.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// The pointer one level deeper, into the array element at `index`.
    public func appending(index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// Whether `other` designates a location strictly inside this one.
    public func isProperPrefix(of other: JSONPointer) -> Bool {
        tokens.count < other.tokens.count && zip(tokens, other.tokens).allSatisfy(CodePoints.equal)
    }

    /// Whether both pointers have the same tokens, scalar for scalar.
    public static func == (left: JSONPointer, right: JSONPointer) -> Bool {
        left.tokens.count == right.tokens.count && zip(left.tokens, right.tokens).allSatisfy(CodePoints.equal)
    }

    /// Hashes the tokens consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens.count)
        for token in tokens {
            CodePoints.hash(token, into: &hasher)
        }
    }

    /// Escapes one token for a pointer's text: `~` becomes `~0`, `/` becomes `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        var escaped = ""
        for character in token.unicodeScalars {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

extension JSONPointer {
    /// How a reference token designates an array position (RFC 6901 section 4).
    public enum ArrayIndex: Sendable, Hashable {
        /// An existing position or, for `add`, the position one past the end.
        case position(Int)
        /// `-`: the position past the last element, valid only for adding.
        case end
    }

    /// Reads a token as an array index: `0` or digits without a leading zero, or `-`;
    /// `nil` for anything else (`01`, `1e0`, `-1`, ` 1`), or a number too large for `Int`.
    public static func arrayIndex(_ token: String) -> ArrayIndex? {
        if token == "-" { return .end }
        let utf8 = token.utf8
        guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0") {
            return utf8.count == 1 ? .position(0) : nil
        }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return .position(value)
    }
}

extension JSONPointer: CustomStringConvertible {
    /// The pointer's text with escaped tokens, e.g. `/a~1b/0`.
    public var description: String {
        var text = ""
        for token in tokens {
            text += "/"
            text += JSONPointer.escape(token)
        }
        return text
    }
}

extension JSONPointer: ExpressibleByStringLiteral {
    /// A pointer from a literal; an invalid literal is a programming error and traps.
    public init(stringLiteral value: String) {
        do {
            try self.init(parsing: value)
        } catch {
            preconditionFailure("invalid JSON Pointer literal \"\(value)\": \(error.message)")
        }
    }
}
