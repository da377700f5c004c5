extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    public var startIndex: Int { 0 }

    /// The position after the last member.
    public var endIndex: Int { entries.count }

    /// The member at `position`, in insertion order.
    public subscript(position: Int) -> Element {
        let entry = entries[position]
        return (entry.key, entry.value)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}

extension JSONObject: Equatable {
    /// JSON equality: the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.entries.withUnsafeBufferPointer { mine in
            rhs.entries.withUnsafeBufferPointer { theirs in
                if mine.baseAddress == theirs.baseAddress { return true }
                for position in 0..<mine.count {
                    // Same order is the common case: check the same position before searching.
                    if sameKey(theirs[position].key, mine[position].key) {
                        guard theirs[position].value == mine[position].value else { return false }
                    } else {
                        guard let value = rhs[mine[position].key], value == mine[position].value else { return false }
                    }
                }
                return true
            }
        }
    }
}

extension JSONObject: Hashable {
    /// Hashes the members independently of their order, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for entry in entries {
            var memberHasher = Hasher()
            CodePoints.hash(entry.key, into: &memberHasher)
            memberHasher.combine(entry.value)
            combined = combined &+ memberHasher.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(combined)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as compact JSON text.
    public var description: String {
        JSONValue.object(self).description
    }
}
