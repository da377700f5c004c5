/// A strict RFC 8259 parser from UTF-8 bytes to `JSONValue`.
///
/// It rejects everything the RFC does not allow (trailing commas, leading zeros, raw
/// control characters in strings, unpaired surrogate escapes, invalid UTF-8, anything
/// after the value) and documents nested deeper than `maximumDepth`, and says what and
/// where in a `JSONParseError`. Integers that do not fit an `Int` become doubles.
/// Duplicate object keys are accepted by default; the last value wins at the first key's
/// position. With `Options.rejectDuplicateKeys` they are an error instead.
public struct JSONParser: Sendable {
    /// The default nesting limit: a state as deep as `JSONValue.maximumStateDepth`, inside
    /// the frames that carry one (a patch frame, an action, an admin listing: up to 5 more
    /// levels), with room to spare; far below the stack's limit.
    public static let defaultMaximumDepth = JSONValue.maximumStateDepth + 8

    /// How many arrays and objects may be nested; deeper documents are rejected.
    public var maximumDepth: Int

    /// What the parser accepts beyond the defaults; see `Options`.
    public var options: Options

    /// Creates a parser with a nesting limit and options (none by default).
    public init(maximumDepth: Int = JSONParser.defaultMaximumDepth, options: Options = []) {
        self.maximumDepth = maximumDepth
        self.options = options
    }

    /// Parses one JSON text from raw bytes.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        let buffer = UnsafeBufferPointer(
            start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
            count: bytes.count
        )
        var cursor = ParserCursor(bytes: buffer, maximumDepth: maximumDepth, options: options)
        return try cursor.parseDocument()
    }

    /// Parses one JSON text from raw bytes and reports where each member value of its
    /// top-level object was written: byte offsets into `bytes`, empty when the top level is
    /// not an object. A repeated key reports its last value, the one the object keeps.
    ///
    /// For a reader that must hand a member back exactly as it was sent (the protocol's
    /// `ref`): the parsed value alone would write `1E2` back as `100.0` and `"\u0041"` as
    /// `"A"`.
    public func parseWithMemberRanges(
        _ bytes: UnsafeRawBufferPointer
    ) throws(JSONParseError) -> (value: JSONValue, memberRanges: [String: Range<Int>]) {
        let buffer = UnsafeBufferPointer(
            start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
            count: bytes.count
        )
        var cursor = ParserCursor(bytes: buffer, maximumDepth: maximumDepth, options: options)
        cursor.topLevel = TopLevelWatch(all: true)
        let value = try cursor.parseDocument()
        return (value, cursor.topLevel?.all ?? [:])
    }

    /// Parses one JSON text from a byte array, with the ranges of its top-level members;
    /// see `parseWithMemberRanges(_:)` on raw bytes.
    public func parseWithMemberRanges(
        _ bytes: [UInt8]
    ) throws(JSONParseError) -> (value: JSONValue, memberRanges: [String: Range<Int>]) {
        let result: Result<(value: JSONValue, memberRanges: [String: Range<Int>]), JSONParseError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try parseWithMemberRanges(raw) }
        }
        return try result.get()
    }

    /// Parses one JSON text from a byte array, reporting where the top-level members named
    /// in `names` were written (nil for one that is absent, the last for a repeated one),
    /// and leaving the member `unparsed` out of the value: it is checked as strictly as the
    /// rest, not built. For a reader that hands one member to another reader as bytes (the
    /// protocol's `action`, decoded by its instance) and needs another exactly as written
    /// (`ref`).
    public func parse(
        _ bytes: [UInt8], rangesOf names: [String], unparsed: String? = nil
    ) throws(JSONParseError) -> (value: JSONValue, ranges: [Range<Int>?]) {
        let result: Result<(value: JSONValue, ranges: [Range<Int>?]), JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in
                var cursor = ParserCursor(bytes: buffer, maximumDepth: maximumDepth, options: options)
                cursor.topLevel = TopLevelWatch(wanted: names, unparsed: unparsed)
                let value = try cursor.parseDocument()
                return (value, cursor.topLevel?.found ?? [])
            }
        }
        return try result.get()
    }

    /// Parses one JSON text from a byte array.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try parse(raw) }
        }
        return try result.get()
    }

    /// Parses one JSON text from a slice of a byte array.
    public func parse(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try parse(raw) }
        }
        return try result.get()
    }

    /// Parses one JSON text from a string (its UTF-8 form).
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(utf8)) }
        }
        return try result.get()
    }
}

extension JSONValue {
    /// Parses a JSON text from bytes with the default parser.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try JSONParser().parse(bytes)
    }

    /// Parses a JSON text from raw bytes with the default parser.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(JSONParseError) {
        self = try JSONParser().parse(bytes)
    }

    /// Parses a JSON text from a string with the default parser.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser().parse(text)
    }
}
