/// RFC 6902 JSON Patch: computing a patch between two documents and applying one.
public enum JSONPatch {
    /// When `diff` takes two values to be the same (and emits nothing for them).
    public enum Equality: Sendable {
        /// JSON equality: `1` and `1.0` are equal, and so are objects whose members come
        /// in another order.
        case json
        /// The same text, as `JSONWriter` writes it: `1` and `1.0` differ (a `replace`),
        /// and so do strings that are only canonically equivalent, and objects whose
        /// members come in another order (a `replace` of the object). Applying the patch
        /// to a copy of `old` then gives a copy of `new` that is written byte for byte
        /// the same, which is what a server needs whose snapshots must match the copies
        /// its subscribers patched.
        case text
    }

    /// Applies `operations` in order and returns the patched document.
    ///
    /// Atomic: when an operation fails, the error names it (`operationIndex`) and says why,
    /// and the caller's document is unchanged (the patch works on a copy-on-write copy, so
    /// only the subtrees it touches are copied).
    public static func apply(_ operations: [PatchOperation], to document: JSONValue) throws(JSONPatchError) -> JSONValue {
        var editor = DocumentEditor(document: document)
        for (index, operation) in operations.enumerated() {
            do {
                try editor.perform(operation)
            } catch {
                throw JSONPatchError(code: error.code, operationIndex: index, operation: operation.name, reason: error.reason)
            }
        }
        return editor.document
    }

    /// Reads a patch from its JSON form and applies it; see `apply(_:to:)`.
    public static func apply(_ patch: JSONValue, to document: JSONValue) throws(JSONPatchError) -> JSONValue {
        try apply(operations(from: patch), to: document)
    }

    /// Computes a patch that turns `old` into `new`: `apply(diff(from: a, to: b), to: a) == b`.
    ///
    /// Uses `add`, `remove` and `replace`. Objects are compared member by member; arrays
    /// trim their common prefix and suffix and align the rest on a bounded LCS, so an
    /// append, an insertion or a removal is one operation and a changed element is
    /// diffed in place (a toggled flag deep in a long list is one `replace`). Subtrees
    /// that both documents share (copy-on-write) are skipped in O(1). Where the
    /// operations for a value would serialize larger than the value itself, a single
    /// `replace` of that value is emitted instead. Equal documents give `[]`; with
    /// `.json` equality (the default) `1` and `1.0`, or objects differing only in member
    /// order, are equal; with `.text` they are not (see `Equality`).
    ///
    /// One element moved inside an array (a removal and an insertion of the same value)
    /// comes out as a single `move`.
    public static func diff(from old: JSONValue, to new: JSONValue, equality: Equality = .json) -> [PatchOperation] {
        var differ = PatchDiffer(equality: equality)
        differ.diff(old, new)
        return MoveDetection.collapse(differ.operations, in: old, equality: equality)
    }
}
