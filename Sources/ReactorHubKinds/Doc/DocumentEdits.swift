import ReactorHubJSON
import Reactor

/// The doc kind's edits as RFC 6902 operations, applied within the kind's limits, with
/// refusals worded for the client.
enum DocumentEdits {
    /// The document an edit applies to, and the kind's limits.
    struct Target {
        var document: JSONValue
        var byteCount: Int
        var limits: DocumentLimits
    }

    /// `set`: adds or replaces an object member, replaces an array element, appends at
    /// `-` or at the array's length; the root may only be set to an object.
    static func set(_ value: JSONValue, at path: String, in target: Target) throws -> JSONPatch.BoundedResult {
        let pointer = try parse(path)
        guard let last = pointer.tokens.last, let parentPointer = pointer.parent else {
            guard case .object = value else {
                throw ActionRefusal("the root can only be set to an object, got \(value.kind.phrase)")
            }
            return try apply([.replace(path: pointer, value: value)], to: target, action: "set")
        }
        guard let parent = target.document[pointer: parentPointer] else {
            throw ActionRefusal("cannot set '\(path)': '\(parentPointer)' does not exist")
        }
        let operation: PatchOperation
        switch parent {
        case .object:
            operation = .add(path: pointer, value: value)
        case .array(let elements):
            switch JSONPointer.arrayIndex(last) {
            case .end?:
                operation = .add(path: pointer, value: value)
            case .position(let index)? where index == elements.count:
                operation = .add(path: pointer, value: value)
            case .position(let index)? where index < elements.count:
                operation = .replace(path: pointer, value: value)
            default:
                throw ActionRefusal(
                    "cannot set '\(path)': '\(last)' is not an index of the array at '\(parentPointer)' (0...\(elements.count) or -)"
                )
            }
        default:
            throw ActionRefusal("cannot set '\(path)': '\(parentPointer)' is \(parent.kind.phrase), not an object or an array")
        }
        return try apply([operation], to: target, action: "set")
    }

    /// `remove`: removes an existing member or element; never the root.
    static func remove(at path: String, in target: Target) throws -> JSONPatch.BoundedResult {
        let pointer = try parse(path)
        guard !pointer.tokens.isEmpty else {
            throw ActionRefusal("the root cannot be removed; set it to {} to empty the document")
        }
        return try apply([.remove(path: pointer)], to: target, action: "remove")
    }

    /// `patch`: RFC 6902 operations applied all or nothing, at most `maxOperations`.
    static func patch(_ operations: [JSONValue], in target: Target) throws -> JSONPatch.BoundedResult {
        let parsed: [PatchOperation]
        do {
            parsed = try JSONPatch.operations(from: .array(operations))
        } catch {
            throw ActionRefusal(error.message)
        }
        return try apply(parsed, to: target, action: "patch")
    }

    private static func parse(_ path: String) throws -> JSONPointer {
        do {
            return try JSONPointer(parsing: path)
        } catch {
            throw ActionRefusal("'\(path)' is not a JSON Pointer: \(error.message)")
        }
    }

    private static func apply(_ operations: [PatchOperation], to target: Target, action: String) throws -> JSONPatch.BoundedResult {
        let limits = target.limits
        do {
            return try JSONPatch.apply(operations, to: target.document, byteCount: target.byteCount, within: limits)
        } catch {
            switch error.code {
            case .tooLarge where error.operationIndex == nil:
                throw ActionRefusal("the document would exceed \(limits.maxBytes) bytes of JSON (reactors.doc.maxBytes)")
            case .tooLarge:
                throw ActionRefusal(message(error, action: action) + " (reactors.doc.maxBytes)")
            case .tooDeep:
                throw ActionRefusal(message(error, action: action) + " (reactors.doc.maxDepth)")
            case .tooManyElements:
                throw ActionRefusal(message(error, action: action) + " (reactors.doc.maxElements)")
            case .tooManyOperations:
                throw ActionRefusal(error.reason + " (reactors.doc.maxOperations)")
            default:
                throw ActionRefusal(message(error, action: action))
            }
        }
    }

    private static func message(_ error: JSONPatchError, action: String) -> String {
        action == "patch" ? error.message : "\(action) does not apply: \(error.reason)"
    }
}
