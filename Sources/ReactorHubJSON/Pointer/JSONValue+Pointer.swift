extension JSONValue {
    /// The value `pointer` refers to, or nil when some part of it does not exist.
    public subscript(pointer pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let object):
                guard let member = object[token] else { return nil }
                current = member
            case .array(let elements):
                guard case .position(let index)? = JSONPointer.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}
