/// Why a JSON Patch could not be read or applied; names the failing operation.
public struct JSONPatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a patch error.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String

        /// Creates a code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name.
        public var description: String { rawValue }

        /// The patch is not an array.
        public static let invalidPatch = Code(rawValue: "invalidPatch")
        /// An operation is not an object, lacks a member, has a mistyped member or an unknown op.
        public static let invalidOperation = Code(rawValue: "invalidOperation")
        /// A `path` or `from` member is not a valid JSON Pointer.
        public static let invalidPointer = Code(rawValue: "invalidPointer")
        /// The location (or its parent, for `add`) does not exist.
        public static let pathNotFound = Code(rawValue: "pathNotFound")
        /// A token used on an array is not an index (`01`, `1e0`, `foo`, or `-` where it cannot be used).
        public static let invalidArrayIndex = Code(rawValue: "invalidArrayIndex")
        /// An array index beyond the end of the array.
        public static let indexOutOfRange = Code(rawValue: "indexOutOfRange")
        /// A `test` operation found a different value.
        public static let testFailed = Code(rawValue: "testFailed")
        /// A `move` into a location inside the value being moved.
        public static let invalidMove = Code(rawValue: "invalidMove")
        /// The document would be nested deeper than its `DocumentLimits.maxDepth`.
        public static let tooDeep = Code(rawValue: "tooDeep")
        /// An array or object would hold more than its `DocumentLimits.maxElements`.
        public static let tooManyElements = Code(rawValue: "tooManyElements")
        /// The document's compact JSON would be longer than its `DocumentLimits.maxBytes`.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// The patch holds more operations than its `DocumentLimits.maxOperations`.
        public static let tooManyOperations = Code(rawValue: "tooManyOperations")
    }

    /// What kind of error this is.
    public let code: Code
    /// The position of the failing operation in the patch, when one operation failed.
    public let operationIndex: Int?
    /// The failing operation's `op`, when known.
    public let operation: String?
    /// What was wrong, e.g. "path '/a/b' does not exist".
    public let reason: String

    /// Creates an error.
    public init(code: Code, operationIndex: Int? = nil, operation: String? = nil, reason: String) {
        self.code = code
        self.operationIndex = operationIndex
        self.operation = operation
        self.reason = reason
    }

    /// One readable sentence: which operation failed and why.
    public var message: String {
        switch (operationIndex, operation) {
        case (let index?, let operation?): "patch operation \(index) (\(operation)): \(reason)"
        case (let index?, nil): "patch operation \(index): \(reason)"
        default: reason
        }
    }

    /// The message.
    public var description: String { message }
}
