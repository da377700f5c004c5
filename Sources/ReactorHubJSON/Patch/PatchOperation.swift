/// One RFC 6902 JSON Patch operation.
public enum PatchOperation: Sendable, Hashable {
    /// Adds `value` at `path`: inserts into an array (shifting later elements), or sets an
    /// object member (replacing any existing one), or replaces the whole document.
    case add(path: JSONPointer, value: JSONValue)
    /// Removes the value at `path`, which must exist.
    case remove(path: JSONPointer)
    /// Replaces the value at `path`, which must exist.
    case replace(path: JSONPointer, value: JSONValue)
    /// Removes the value at `from` and adds it at `path`.
    case move(from: JSONPointer, path: JSONPointer)
    /// Adds a copy of the value at `from` at `path`.
    case copy(from: JSONPointer, path: JSONPointer)
    /// Succeeds only if the value at `path` equals `value` (JSON equality).
    case test(path: JSONPointer, value: JSONValue)

    /// The operation's name as it appears in `"op"`.
    public var name: String {
        switch self {
        case .add: "add"
        case .remove: "remove"
        case .replace: "replace"
        case .move: "move"
        case .copy: "copy"
        case .test: "test"
        }
    }

    /// The location the operation acts on.
    public var path: JSONPointer {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _), .test(let path, _):
            path
        case .move(_, let path), .copy(_, let path):
            path
        }
    }
}

extension PatchOperation: CustomStringConvertible {
    /// The operation as compact JSON text.
    public var description: String {
        jsonValue.description
    }
}
