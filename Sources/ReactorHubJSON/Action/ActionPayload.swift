/// An action payload (PROTOCOL.md "Action payloads") on its way to the instance that
/// decodes it: the bytes of the message that carried it with where the action was written
/// in them, checked as JSON and not parsed; or a value parsed already (an HTTP body, an
/// action forwarded by another node).
///
/// Decoding the bytes (`ActionDecoder.decode(_:from:)`) makes the action without a
/// `JSONValue` tree of it or of its message: only the members that are themselves JSON
/// values (a `doc`'s `value`) are built.
public struct ActionPayload: Sendable {
    enum Storage: Sendable {
        /// The message's bytes, where the action was written, and where its members were
        /// when the parser that checked it noted them (else the decoder finds them).
        case bytes([UInt8], Range<Int>, [(key: String, range: Range<Int>)]?)
        case value(JSONValue)
    }

    let storage: Storage

    /// A payload parsed already.
    public init(_ value: JSONValue) {
        storage = .value(value)
    }

    /// A payload written at `range` of `bytes`, which a `JSONParser` accepted as one JSON
    /// value (as part of the message it came in): it is not checked again.
    public init(checkedJSON bytes: [UInt8], range: Range<Int>) {
        storage = .bytes(bytes, range, nil)
    }

    /// A payload written at `range` of `bytes` as `init(checkedJSON:range:)` takes it, an
    /// object whose members' values were written at `members` (in the order written, as
    /// the check met them): the decoder does not look for them again.
    package init(checkedJSON bytes: [UInt8], range: Range<Int>, members: [(key: String, range: Range<Int>)]) {
        storage = .bytes(bytes, range, members)
    }

    /// Where the payload was written in its message's bytes; nil for one parsed already.
    package var writtenRange: Range<Int>? {
        guard case .bytes(_, let range, _) = storage else { return nil }
        return range
    }

    /// Where the members of the action object were written, when the parser that checked
    /// it noted them (nil: the decoder finds them).
    package var notedMembers: [(key: String, range: Range<Int>)]? {
        guard case .bytes(_, _, let members) = storage else { return nil }
        return members
    }

    /// The payload as a value, parsed now for the bytes form.
    public var value: JSONValue {
        switch storage {
        case .value(let value):
            value
        case .bytes(let bytes, let range, _):
            (try? JSONParser().parse(bytes[range])) ?? .null
        }
    }
}

extension ActionPayload: Equatable {
    /// Equal when the values are: `{"type":"a"}` written with or without spaces.
    public static func == (lhs: ActionPayload, rhs: ActionPayload) -> Bool {
        lhs.value == rhs.value
    }
}

extension ActionPayload: ExpressibleByStringLiteral {
    /// A bare action name, `"increase"`.
    public init(stringLiteral name: String) {
        self.init(.string(name))
    }
}
