extension JSONValue {
    /// The deepest nesting a state may have: `reactors.doc.maxDepth` accepts up to this.
    ///
    /// Every walk over a value (parsing, writing, sizing, comparing, hashing, diffing,
    /// patching, freeing) is safe at `JSONParser.defaultMaximumDepth`, which leaves room
    /// above this for the frames that carry a state.
    public static let maximumStateDepth = 512

    /// How many arrays and objects the deepest path holds, the value itself included: 0
    /// for a scalar, 1 for `[]` or `{"a": 1}`, 2 for `[[]]`.
    ///
    /// Counting stops once the depth passes `limit` (the result is then `limit + 1`), so
    /// that the walk's own recursion stays within it.
    public func depth(limit: Int = JSONValue.maximumStateDepth) -> Int {
        switch self {
        case .array(let elements):
            return 1 + Self.deepest(elements.lazy.map { $0 }, limit: limit - 1)
        case .object(let object):
            return 1 + Self.deepest(object.lazy.map(\.value), limit: limit - 1)
        default:
            return 0
        }
    }

    /// The depth of the deepest of `values`, at most `limit + 1`.
    private static func deepest<Values: Sequence<JSONValue>>(_ values: Values, limit: Int) -> Int {
        var deepest = 0
        for value in values {
            switch value {
            case .array, .object:
                guard limit >= 1 else { return limit + 1 }
                deepest = max(deepest, value.depth(limit: limit))
                if deepest > limit { return limit + 1 }
            default:
                continue
            }
        }
        return deepest
    }
}
