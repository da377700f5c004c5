/// Performs patch operations on a document in place.
///
/// Navigation detaches each container from its parent before descending (the parent
/// holds `.null` meanwhile), so the containers on the path are uniquely referenced and
/// mutated without copying; containers shared with the caller's original document are
/// copied once, on first write, by copy-on-write.
struct DocumentEditor {
    var document: JSONValue

    /// Performs one operation; errors carry a reason but no operation index yet.
    mutating func perform(_ operation: PatchOperation) throws(JSONPatchError) {
        switch operation {
        case .add(let path, let value):
            try add(value, at: path)
        case .remove(let path):
            _ = try remove(at: path)
        case .replace(let path, let value):
            try replace(at: path, with: value)
        case .move(let from, let path):
            let moved = try source(at: from)
            if from == path { return }
            if from.isProperPrefix(of: path) {
                throw JSONPatchError(code: .invalidMove, reason: "cannot move '\(from)' into its own child '\(path)'")
            }
            // The source exists (checked above), so only `add` can fail from here on.
            _ = try remove(at: from)
            try add(moved, at: path)
        case .copy(let from, let path):
            try add(try source(at: from), at: path)
        case .test(let path, let expected):
            let actual = try value(at: path)
            guard actual == expected else {
                throw JSONPatchError(code: .testFailed, reason: "the value at '\(path)' is \(summary(actual)), not \(summary(expected))")
            }
        }
    }

    /// The value at a `from` location, with errors saying it is the source.
    private func source(at pointer: JSONPointer) throws(JSONPatchError) -> JSONValue {
        do {
            return try value(at: pointer)
        } catch {
            throw JSONPatchError(code: error.code, reason: "source " + error.reason)
        }
    }

    /// The value at `pointer`.
    func value(at pointer: JSONPointer) throws(JSONPatchError) -> JSONValue {
        var current = document
        for (depth, token) in pointer.tokens.enumerated() {
            switch current {
            case .object(let object):
                guard let member = object[token] else { throw Self.notFound(pointer, depth) }
                current = member
            case .array(let array):
                current = array[try Self.existingIndex(token, in: array, pointer, depth)]
            default:
                throw Self.notAContainer(current, pointer, depth)
            }
        }
        return current
    }

    mutating func add(_ value: JSONValue, at pointer: JSONPointer) throws(JSONPatchError) {
        guard let last = pointer.tokens.last else {
            document = value
            return
        }
        try withParent(of: pointer) { (parent: inout JSONValue) throws(JSONPatchError) in
            switch parent {
            case .object(var object):
                parent = .null
                object[last] = value
                parent = .object(object)
            case .array(var array):
                let index: Int
                switch JSONPointer.arrayIndex(last) {
                case .end?: index = array.count
                case .position(let position)?:
                    guard position <= array.count else {
                        throw Self.outOfRange(position, count: array.count, pointer, allowingEnd: true)
                    }
                    index = position
                case nil:
                    throw Self.invalidIndex(last, pointer)
                }
                parent = .null
                array.insert(value, at: index)
                parent = .array(array)
            default:
                throw Self.notAContainer(parent, pointer, pointer.tokens.count - 1)
            }
        }
    }

    mutating func remove(at pointer: JSONPointer) throws(JSONPatchError) -> JSONValue {
        guard let last = pointer.tokens.last else {
            throw JSONPatchError(code: .invalidOperation, reason: "the whole document cannot be removed")
        }
        return try withParent(of: pointer) { (parent: inout JSONValue) throws(JSONPatchError) -> JSONValue in
            switch parent {
            case .object(var object):
                guard let position = object.index(forKey: last) else {
                    throw Self.notFound(pointer, pointer.tokens.count - 1)
                }
                parent = .null
                let removed = object.remove(at: position).value
                parent = .object(object)
                return removed
            case .array(var array):
                let index = try Self.existingIndex(last, in: array, pointer, pointer.tokens.count - 1)
                parent = .null
                let removed = array.remove(at: index)
                parent = .array(array)
                return removed
            default:
                throw Self.notAContainer(parent, pointer, pointer.tokens.count - 1)
            }
        }
    }

    mutating func replace(at pointer: JSONPointer, with value: JSONValue) throws(JSONPatchError) {
        guard let last = pointer.tokens.last else {
            document = value
            return
        }
        try withParent(of: pointer) { (parent: inout JSONValue) throws(JSONPatchError) in
            switch parent {
            case .object(var object):
                guard let position = object.index(forKey: last) else {
                    throw Self.notFound(pointer, pointer.tokens.count - 1)
                }
                parent = .null
                object.modifyValue(at: position) { $0 = value }
                parent = .object(object)
            case .array(var array):
                let index = try Self.existingIndex(last, in: array, pointer, pointer.tokens.count - 1)
                parent = .null
                array[index] = value
                parent = .array(array)
            default:
                throw Self.notAContainer(parent, pointer, pointer.tokens.count - 1)
            }
        }
    }

    /// Calls `body` with the container that holds the location `pointer` designates.
    private mutating func withParent<Result>(
        of pointer: JSONPointer,
        _ body: (inout JSONValue) throws(JSONPatchError) -> Result
    ) throws(JSONPatchError) -> Result {
        try Self.descend(&document, pointer, depth: 0, until: pointer.tokens.count - 1, body)
    }

    private static func descend<Result>(
        _ value: inout JSONValue,
        _ pointer: JSONPointer,
        depth: Int,
        until end: Int,
        _ body: (inout JSONValue) throws(JSONPatchError) -> Result
    ) throws(JSONPatchError) -> Result {
        if depth == end {
            return try body(&value)
        }
        let token = pointer.tokens[depth]
        switch value {
        case .object(var object):
            guard let position = object.index(forKey: token) else {
                throw Self.notFound(pointer, depth)
            }
            value = .null
            defer { value = .object(object) }
            return try object.modifyValue(at: position) { (child: inout JSONValue) throws(JSONPatchError) in
                try descend(&child, pointer, depth: depth + 1, until: end, body)
            }
        case .array(var array):
            let index = try Self.existingIndex(token, in: array, pointer, depth)
            value = .null
            defer { value = .array(array) }
            return try descend(&array[index], pointer, depth: depth + 1, until: end, body)
        default:
            throw Self.notAContainer(value, pointer, depth)
        }
    }
}

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
