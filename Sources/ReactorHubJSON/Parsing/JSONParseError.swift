/// Why and where a JSON text was rejected.
///
/// `offset` is the byte offset of the offending byte (or of the end of input); `line` and
/// `column` are 1-based, the column counting Unicode scalars from the start of the line,
/// so a person can find the spot in an editor. The message says what was wrong and what
/// was expected; `description` adds the position.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a parse error; open for additions without breaking callers.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, e.g. `unexpectedEndOfInput`.
        public let rawValue: String

        /// Creates a code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name.
        public var description: String { rawValue }

        /// The input ended inside a value (truncated input, or empty input).
        public static let unexpectedEndOfInput = Code(rawValue: "unexpectedEndOfInput")
        /// A byte that cannot start or continue the value at this point.
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// A comma directly before `]` or `}`.
        public static let trailingComma = Code(rawValue: "trailingComma")
        /// A malformed number: leading zero, missing digits, or beyond the range of a double.
        public static let invalidNumber = Code(rawValue: "invalidNumber")
        /// An unknown escape such as `\x`, or a `\u` escape without four hex digits.
        public static let invalidEscape = Code(rawValue: "invalidEscape")
        /// A `\u` escape of a UTF-16 surrogate that is not part of a valid pair.
        public static let loneSurrogate = Code(rawValue: "loneSurrogate")
        /// A raw control character (below U+0020) inside a string.
        public static let controlCharacter = Code(rawValue: "controlCharacter")
        /// Bytes that are not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// Something other than whitespace after the complete value.
        public static let trailingData = Code(rawValue: "trailingData")
        /// Arrays and objects nested deeper than the parser's limit.
        public static let nestingTooDeep = Code(rawValue: "nestingTooDeep")
    }

    /// What kind of error this is.
    public let code: Code
    /// What was wrong and what was expected, without the position.
    public let message: String
    /// Byte offset of the error in the input.
    public let offset: Int
    /// 1-based line of the error.
    public let line: Int
    /// 1-based column of the error, in Unicode scalars.
    public let column: Int

    /// Creates an error; the parser computes `line` and `column` from the input.
    public init(code: Code, message: String, offset: Int, line: Int, column: Int) {
        self.code = code
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// One readable sentence: the message followed by the position.
    public var description: String {
        "\(message) at line \(line), column \(column) (byte \(offset))"
    }
}
