/// A JSON value as RFC 8259 defines it, with integers and doubles kept apart.
///
/// `1` parses to `.int(1)` and is written back as `1`; `1.5` stays `.double(1.5)`. Objects
/// keep their members in insertion order (`JSONObject`), which makes encoded states and
/// patches read in declaration order, while equality ignores member order as JSON does.
/// Containers are copy-on-write, so two versions of a document share every unchanged
/// subtree and `isIdentical(to:)` recognises them in O(1).
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integral number that fits in a 64-bit `Int`.
    case int(Int)
    /// Any other number; never NaN or infinite when produced by this module.
    case double(Double)
    /// A string of Unicode text.
    case string(String)
    /// An ordered list of values.
    case array([JSONValue])
    /// An object whose members keep their insertion order.
    case object(JSONObject)
}

extension JSONValue {
    /// The JSON type of a value, as named in messages and action schemas.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `null`.
        case null
        /// `true` or `false`.
        case boolean
        /// An integer or a double.
        case number
        /// A string.
        case string
        /// An array.
        case array
        /// An object.
        case object

        /// The kind with its article, for messages: "a string", "an object", "null".
        public var phrase: String {
            switch self {
            case .null: "null"
            case .boolean: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    /// The JSON type of this value; integers and doubles are both `.number`.
    public var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .boolean
        case .int, .double: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}
