/// Performs patch operations on a document in place.
///
/// Navigation takes each container out of its parent before changing it (the parent holds
/// `.null` meanwhile) and puts it back after, so the editor holds the containers on the
/// path alone and changes them in place: a container shared with the caller's original
/// document is copied once, on its first change, by copy-on-write, and every later
/// operation of the patch changes that copy in place. (Binding a container with
/// `switch value { case .array(var array):` would not do: the switch keeps its own
/// reference while the case runs, and every change copied the whole container.)
///
/// With a `ledger`, each change is also checked against the document's limits, counted
/// into its size, and recorded as the operation a subscriber applies (`EditLedger`).
struct DocumentEditor {
    var document: JSONValue
    var ledger: EditLedger?

    init(document: JSONValue, ledger: EditLedger? = nil) {
        self.document = document
        self.ledger = ledger
    }

    /// Performs one operation; errors carry a reason but no operation index yet.
    mutating func perform(_ operation: PatchOperation) throws(JSONPatchError) {
        switch operation {
        case .add(let path, let value):
            try add(value, at: path, source: .patch)
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
            let removedFrom = try remove(at: from, moving: true)
            try add(moved, at: path, source: .moved(from: removedFrom))
        case .copy(let from, let path):
            try add(try source(at: from), at: path, source: .document)
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

    mutating func add(_ value: JSONValue, at pointer: JSONPointer, source: EditLedger.Source) throws(JSONPatchError) {
        guard let last = pointer.tokens.last else {
            try ledger?.replaceRoot(document, with: value, source: source)
            document = value
            return
        }
        var ledger = self.ledger.take()
        defer { self.ledger = ledger }
        try withParent(of: pointer) { (parent: inout JSONValue) throws(JSONPatchError) in
            if var object = parent.takeObject() {
                defer { parent = .object(object) }
                if let position = object.index(forKey: last) {
                    try ledger?.replaceMember(object[position].value, with: value, at: pointer, source: source)
                    object.modifyValue(at: position) { $0 = value }
                } else {
                    try ledger?.addMember(last, value, to: object.count, at: pointer, source: source)
                    object.append(last, value)
                }
            } else if var array = parent.takeArray() {
                defer { parent = .array(array) }
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
                try ledger?.insertElement(value, into: array.count, at: pointer.parent!.appending(index: index), source: source)
                array.insert(value, at: index)
            } else {
                throw Self.notAContainer(parent, pointer, pointer.tokens.count - 1)
            }
        }
    }

    /// Removes the value at `pointer`; returns the location it was removed from, with the
    /// array index resolved. `moving`: the value is added elsewhere next (`move`).
    @discardableResult
    mutating func remove(at pointer: JSONPointer, moving: Bool = false) throws(JSONPatchError) -> JSONPointer {
        guard let last = pointer.tokens.last else {
            throw JSONPatchError(code: .invalidOperation, reason: "the whole document cannot be removed")
        }
        var ledger = self.ledger.take()
        defer { self.ledger = ledger }
        return try withParent(of: pointer) { (parent: inout JSONValue) throws(JSONPatchError) -> JSONPointer in
            if var object = parent.takeObject() {
                defer { parent = .object(object) }
                guard let position = object.index(forKey: last) else {
                    throw Self.notFound(pointer, pointer.tokens.count - 1)
                }
                let removed = object.remove(at: position).value
                try ledger?.removeMember(last, removed, from: object.count + 1, at: pointer, moving: moving)
                return pointer
            } else if var array = parent.takeArray() {
                defer { parent = .array(array) }
                let index = try Self.existingIndex(last, in: array, pointer, pointer.tokens.count - 1)
                let removed = array.remove(at: index)
                let location = pointer.parent!.appending(index: index)
                try ledger?.removeElement(removed, from: array.count + 1, at: location, moving: moving)
                return location
            } else {
                throw Self.notAContainer(parent, pointer, pointer.tokens.count - 1)
            }
        }
    }

    mutating func replace(at pointer: JSONPointer, with value: JSONValue) throws(JSONPatchError) {
        guard let last = pointer.tokens.last else {
            try ledger?.replaceRoot(document, with: value, source: .patch)
            document = value
            return
        }
        var ledger = self.ledger.take()
        defer { self.ledger = ledger }
        try withParent(of: pointer) { (parent: inout JSONValue) throws(JSONPatchError) in
            if var object = parent.takeObject() {
                defer { parent = .object(object) }
                guard let position = object.index(forKey: last) else {
                    throw Self.notFound(pointer, pointer.tokens.count - 1)
                }
                try ledger?.replaceMember(object[position].value, with: value, at: pointer, source: .patch)
                object.modifyValue(at: position) { $0 = value }
            } else if var array = parent.takeArray() {
                defer { parent = .array(array) }
                let index = try Self.existingIndex(last, in: array, pointer, pointer.tokens.count - 1)
                try ledger?.replaceElement(array[index], with: value, at: pointer, source: .patch)
                array[index] = value
            } else {
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
        if var object = value.takeObject() {
            defer { value = .object(object) }
            guard let position = object.index(forKey: token) else {
                throw Self.notFound(pointer, depth)
            }
            return try object.modifyValue(at: position) { (child: inout JSONValue) throws(JSONPatchError) in
                try descend(&child, pointer, depth: depth + 1, until: end, body)
            }
        }
        if var array = value.takeArray() {
            defer { value = .array(array) }
            let index = try Self.existingIndex(token, in: array, pointer, depth)
            return try descend(&array[index], pointer, depth: depth + 1, until: end, body)
        }
        throw Self.notAContainer(value, pointer, depth)
    }
}

extension JSONValue {
    /// The array, moved out of this value (which becomes `.null`), so that the caller holds
    /// its storage alone; nil (and nothing changes) when this is not an array.
    mutating func takeArray() -> [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        self = .null
        return elements
    }

    /// The object, moved out of this value (which becomes `.null`); nil when not an object.
    mutating func takeObject() -> JSONObject? {
        guard case .object(let object) = self else { return nil }
        self = .null
        return object
    }
}
