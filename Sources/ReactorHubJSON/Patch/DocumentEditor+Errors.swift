/// The editor's errors, worded for the client, and the short renderings they use.
extension DocumentEditor {
    /// The position designated by `token` in `array`, which must exist (`-` never does).
    static func existingIndex(_ token: String, in array: [JSONValue], _ pointer: JSONPointer, _ depth: Int) throws(JSONPatchError) -> Int {
        switch JSONPointer.arrayIndex(token) {
        case .position(let index)?:
            guard index < array.count else {
                throw outOfRange(index, count: array.count, prefix(pointer, depth), allowingEnd: false)
            }
            return index
        case .end?:
            throw JSONPatchError(
                code: .indexOutOfRange,
                reason: "'-' in '\(pointer)' designates the end of the array, where no element exists"
            )
        case nil:
            throw invalidIndex(token, pointer)
        }
    }

    static func prefix(_ pointer: JSONPointer, _ depth: Int) -> JSONPointer {
        JSONPointer(tokens: Array(pointer.tokens[...depth]))
    }

    static func notFound(_ pointer: JSONPointer, _ depth: Int) -> JSONPatchError {
        let missing = prefix(pointer, depth)
        let reason = missing == pointer
            ? "path '\(pointer)' does not exist"
            : "path '\(pointer)' cannot be reached: '\(missing)' does not exist"
        return JSONPatchError(code: .pathNotFound, reason: reason)
    }

    static func notAContainer(_ value: JSONValue, _ pointer: JSONPointer, _ depth: Int) -> JSONPatchError {
        let holder = JSONPointer(tokens: Array(pointer.tokens[..<depth]))
        return JSONPatchError(
            code: .pathNotFound,
            reason: "path '\(pointer)' cannot be reached: '\(holder)' is \(value.kind.phrase), not an object or array"
        )
    }

    static func invalidIndex(_ token: String, _ pointer: JSONPointer) -> JSONPatchError {
        JSONPatchError(
            code: .invalidArrayIndex,
            reason: "'\(token)' in '\(pointer)' is not an array index (0, digits without a leading zero, or '-' to append)"
        )
    }

    static func outOfRange(_ index: Int, count: Int, _ pointer: JSONPointer, allowingEnd: Bool) -> JSONPatchError {
        let limit = allowingEnd ? "at most \(count)" : (count == 0 ? "none: the array is empty" : "at most \(count - 1)")
        return JSONPatchError(
            code: .indexOutOfRange,
            reason: "index \(index) in '\(pointer)' is out of range; valid: \(limit)"
        )
    }

    /// A short rendering of a value for messages: scalars in full, containers by size.
    func summary(_ value: JSONValue) -> String {
        switch value {
        case .array(let array): array.count == 1 ? "an array of 1 element" : "an array of \(array.count) elements"
        case .object(let object): object.count == 1 ? "an object with 1 member" : "an object with \(object.count) members"
        case .string(let text) where text.count > 40: "a string of \(text.count) characters"
        default: value.description
        }
    }
}
