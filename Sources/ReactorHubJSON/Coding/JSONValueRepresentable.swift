/// A value that holds its JSON form already, so that code which would encode it member by
/// member (`JSONValueEncoder` through `Encodable`) can take that form as it is.
///
/// The two must agree: `jsonValue` is exactly what encoding the value gives. The hub uses
/// it for reactor states such as the doc kind's, whose state is a JSON document: a change
/// then costs no encoding of the whole document, and unchanged subtrees keep their
/// storage, which the differ recognises in O(1).
public protocol JSONValueRepresentable {
    /// The value's JSON, as encoding it would give.
    var jsonValue: JSONValue { get }

    /// The operations that made `jsonValue` from an earlier value, when the value knows
    /// them (the doc kind: its edits are the patch); nil by default.
    ///
    /// A publisher that holds exactly `base` (the same storage) may send these operations
    /// instead of diffing the two values, which costs what the edit changed rather than
    /// the size of the arrays it touched.
    var jsonPatch: JSONPatch.Step? { get }
}

extension JSONValueRepresentable {
    /// Not known: a publisher diffs.
    public var jsonPatch: JSONPatch.Step? { nil }
}

extension JSONPatch {
    /// A patch together with the value it applies to.
    public struct Step: Sendable {
        /// The value the operations apply to.
        public var base: JSONValue
        /// RFC 6902 operations that turn `base` into the new value, text for text.
        public var operations: [PatchOperation]

        /// Creates a step.
        public init(base: JSONValue, operations: [PatchOperation]) {
            self.base = base
            self.operations = operations
        }

        /// The operations when `old` is `base` itself (shared storage, O(1)); nil otherwise.
        public func operations(from old: JSONValue) -> [PatchOperation]? {
            base.isIdentical(to: old) ? operations : nil
        }
    }
}
