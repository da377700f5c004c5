extension JSONPatch {
    /// What `apply(_:to:byteCount:within:)` gives: the document, its size, and the patch
    /// that turns the original into it.
    public struct BoundedResult: Sendable {
        /// The patched document.
        public var document: JSONValue
        /// The size of `document`'s compact JSON.
        public var byteCount: Int
        /// The operations that turn the original document into `document`, text for text,
        /// as a subscriber applies them (`test` left out, `-` resolved to an index, a
        /// `copy` as the `add` of its value, changes that keep the text left out); `[]`
        /// when the text is the same. Nil when they could not stand for the change without
        /// comparing the texts (a `move`, or several operations of which some are not
        /// array insertions and might undo each other): then diff the two documents.
        public var patch: [PatchOperation]?
    }

    /// Applies `operations` in order to `document`, whose compact JSON is `byteCount`
    /// bytes, keeping it within `limits`; all or nothing, as `apply(_:to:)`.
    ///
    /// The cost follows what the operations change, not the size of what they touch: the
    /// containers on each path are copied once (those the original shares) and changed in
    /// place after; the size is kept by adding and subtracting the values added and
    /// removed; the depth is checked on the values added; and only the container that grows
    /// is counted. An operation that would nest the document deeper than `maxDepth` or make
    /// a container hold more than `maxElements` fails with `tooDeep` or `tooManyElements`
    /// (naming it); a result over `maxBytes` fails with `tooLarge`, and a patch of more than
    /// `maxOperations` with `tooManyOperations`, before anything is applied.
    public static func apply(
        _ operations: [PatchOperation],
        to document: JSONValue,
        byteCount: Int,
        within limits: DocumentLimits
    ) throws(JSONPatchError) -> BoundedResult {
        guard operations.count <= limits.maxOperations else {
            throw JSONPatchError(
                code: .tooManyOperations, reason: "the patch has \(operations.count) operations, more than \(limits.maxOperations)"
            )
        }
        var editor = DocumentEditor(document: document, ledger: EditLedger(limits: limits, byteCount: byteCount))
        for (index, operation) in operations.enumerated() {
            do {
                try editor.perform(operation)
            } catch {
                throw JSONPatchError(code: error.code, operationIndex: index, operation: operation.name, reason: error.reason)
            }
        }
        let ledger = editor.ledger!
        guard ledger.byteCount <= limits.maxBytes else {
            throw JSONPatchError(
                code: .tooLarge, reason: "the document would be \(ledger.byteCount) bytes of JSON, more than \(limits.maxBytes)"
            )
        }
        return BoundedResult(document: editor.document, byteCount: ledger.byteCount, patch: ledger.patch)
    }
}
