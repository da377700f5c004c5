extension PatchOperation {
    /// Reads operation number `index` of a patch from its JSON form,
    /// e.g. `{"op":"replace","path":"/value","value":1}`.
    ///
    /// Members other than those the operation uses are ignored, as RFC 6902 requires.
    public init(json: JSONValue, index: Int) throws(JSONPatchError) {
        guard case .object(let object) = json else {
            throw JSONPatchError(code: .invalidOperation, operationIndex: index, reason: "an operation must be an object, got \(json.kind.phrase)")
        }
        guard let opValue = object["op"] else {
            throw JSONPatchError(code: .invalidOperation, operationIndex: index, reason: "missing member 'op'")
        }
        guard case .string(let op) = opValue else {
            throw JSONPatchError(code: .invalidOperation, operationIndex: index, reason: "member 'op' must be a string, got \(opValue.kind.phrase)")
        }
        let context = (index: index, op: op)
        func pointer(_ member: String) throws(JSONPatchError) -> JSONPointer {
            guard let value = object[member] else {
                throw JSONPatchError(code: .invalidOperation, operationIndex: context.index, operation: context.op, reason: "missing member '\(member)'")
            }
            guard case .string(let text) = value else {
                throw JSONPatchError(
                    code: .invalidOperation, operationIndex: context.index, operation: context.op,
                    reason: "member '\(member)' must be a JSON Pointer string, got \(value.kind.phrase)"
                )
            }
            do {
                return try JSONPointer(parsing: text)
            } catch {
                throw JSONPatchError(code: .invalidPointer, operationIndex: context.index, operation: context.op, reason: error.message)
            }
        }
        func value() throws(JSONPatchError) -> JSONValue {
            guard let value = object["value"] else {
                throw JSONPatchError(code: .invalidOperation, operationIndex: context.index, operation: context.op, reason: "missing member 'value'")
            }
            return value
        }
        switch op {
        case "add": self = .add(path: try pointer("path"), value: try value())
        case "remove": self = .remove(path: try pointer("path"))
        case "replace": self = .replace(path: try pointer("path"), value: try value())
        case "move": self = .move(from: try pointer("from"), path: try pointer("path"))
        case "copy": self = .copy(from: try pointer("from"), path: try pointer("path"))
        case "test": self = .test(path: try pointer("path"), value: try value())
        default:
            throw JSONPatchError(
                code: .invalidOperation, operationIndex: index,
                reason: "unknown op '\(op)'; ops: add, remove, replace, move, copy, test"
            )
        }
    }

    /// The operation's JSON form: `op`, then `from` and `path`, then `value`.
    public var jsonValue: JSONValue {
        var object = JSONObject(minimumCapacity: 3)
        object.updateValue(.string(name), forKey: "op")
        switch self {
        case .add(let path, let value), .replace(let path, let value), .test(let path, let value):
            object.updateValue(.string(path.description), forKey: "path")
            object.updateValue(value, forKey: "value")
        case .remove(let path):
            object.updateValue(.string(path.description), forKey: "path")
        case .move(let from, let path), .copy(let from, let path):
            object.updateValue(.string(from.description), forKey: "from")
            object.updateValue(.string(path.description), forKey: "path")
        }
        return .object(object)
    }
}

extension JSONPatch {
    /// Reads a whole patch (a JSON array of operations).
    public static func operations(from json: JSONValue) throws(JSONPatchError) -> [PatchOperation] {
        guard case .array(let elements) = json else {
            throw JSONPatchError(code: .invalidPatch, reason: "a patch must be an array of operations, got \(json.kind.phrase)")
        }
        var operations: [PatchOperation] = []
        operations.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            operations.append(try PatchOperation(json: element, index: index))
        }
        return operations
    }

    /// The JSON form of a patch: an array of operation objects.
    public static func jsonValue(of operations: [PatchOperation]) -> JSONValue {
        .array(operations.map(\.jsonValue))
    }
}

extension JSONWriter {
    /// Writes a patch as a JSON array, without building its `JSONValue` form.
    public mutating func writePatch(_ operations: [PatchOperation]) {
        bytes.append(UInt8(ascii: "["))
        for (index, operation) in operations.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writeOperation(operation)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes one patch operation as a JSON object.
    public mutating func writeOperation(_ operation: PatchOperation) {
        switch operation {
        case .add(let path, let value):
            writeRaw(#"{"op":"add","path":"#)
            writePointer(path)
            writeRaw(#","value":"#)
            writeValue(value)
        case .remove(let path):
            writeRaw(#"{"op":"remove","path":"#)
            writePointer(path)
        case .replace(let path, let value):
            writeRaw(#"{"op":"replace","path":"#)
            writePointer(path)
            writeRaw(#","value":"#)
            writeValue(value)
        case .move(let from, let path):
            writeRaw(#"{"op":"move","from":"#)
            writePointer(from)
            writeRaw(#","path":"#)
            writePointer(path)
        case .copy(let from, let path):
            writeRaw(#"{"op":"copy","from":"#)
            writePointer(from)
            writeRaw(#","path":"#)
            writePointer(path)
        case .test(let path, let value):
            writeRaw(#"{"op":"test","path":"#)
            writePointer(path)
            writeRaw(#","value":"#)
            writeValue(value)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes a JSON Pointer as a JSON string, escaping its tokens for both formats.
    public mutating func writePointer(_ pointer: JSONPointer) {
        bytes.append(UInt8(ascii: "\""))
        for token in pointer.tokens {
            bytes.append(UInt8(ascii: "/"))
            var escaped = JSONPointer.escape(token)
            escaped.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
