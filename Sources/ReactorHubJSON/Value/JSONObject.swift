/// The members of a JSON object, in insertion order, with unique keys.
///
/// Keys are told apart by their Unicode scalars, as JSON does (`CodePoints`): `"é"` and
/// `"e\u{301}"` are two members, though they are equal `String`s.
///
/// Small objects (the common case for states and messages) are a flat array searched
/// linearly, which beats hashing for a handful of short keys; past `indexThreshold`
/// members a key-to-position dictionary keeps lookups O(1). Both live in value-type
/// storage, so the object is copy-on-write and `isIdentical(to:)` can tell in O(1) that
/// two objects share their storage (how the differ skips unchanged subtrees).
public struct JSONObject: Sendable {
    /// One member: its key and its value.
    public typealias Element = (key: String, value: JSONValue)

    /// A stored member (a struct rather than a tuple: arrays of structs copy and destroy
    /// through specialized code, arrays of tuples through generic witnesses).
    struct Entry: Sendable {
        var key: String
        var value: JSONValue
    }

    /// Members in insertion order.
    private(set) var entries: [Entry]

    /// Key to position in `entries`; empty while `entries.count <= indexThreshold`.
    private var positions: [MemberName: Int]

    /// Objects with more members than this keep a hash index of their keys.
    static var indexThreshold: Int { 8 }

    /// Creates an empty object.
    public init() {
        entries = []
        positions = Dictionary()
    }

    /// Creates an empty object with room for `capacity` members.
    public init(minimumCapacity capacity: Int) {
        entries = []
        entries.reserveCapacity(capacity)
        positions = Dictionary()
    }

    /// Creates an object from key-value pairs in order; a repeated key keeps its first
    /// position and its last value.
    public init<Pairs: Sequence>(_ pairs: Pairs) where Pairs.Element == (String, JSONValue) {
        self.init()
        for (key, value) in pairs {
            updateValue(value, forKey: key)
        }
    }

    /// Creates an object from members in order, as the parser collects them; a repeated
    /// key keeps its first position and its last value.
    init(entries: [Entry]) {
        self.entries = entries
        positions = Dictionary()
        if entries.count > Self.indexThreshold {
            positions.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() where positions.updateValue(position, forKey: MemberName(entry.key)) != nil {
                self = JSONObject(entries.lazy.map { ($0.key, $0.value) })
                return
            }
        } else {
            for position in entries.indices.dropFirst() {
                let key = entries[position].key
                for earlier in 0..<position where Self.sameKey(entries[earlier].key, key) {
                    self = JSONObject(entries.lazy.map { ($0.key, $0.value) })
                    return
                }
            }
        }
    }

    /// The number of members.
    public var count: Int { entries.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { entries.isEmpty }

    /// The keys, in order.
    public var keys: [String] { entries.map(\.key) }

    /// The values, in key order.
    public var values: [JSONValue] { entries.map(\.value) }

    /// The position of the member named `key`, if any.
    public func index(forKey key: String) -> Int? {
        if entries.count > Self.indexThreshold {
            return positions[MemberName(key)]
        }
        return entries.firstIndex { Self.sameKey($0.key, key) }
    }

    /// Key equality by Unicode scalars (`CodePoints`), with the length test first: most
    /// keys of an object differ in length.
    static func sameKey(_ left: String, _ right: String) -> Bool {
        CodePoints.equal(left, right)
    }

    /// Reads, replaces, adds (at the end) or, when set to `nil`, removes the member named `key`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = index(forKey: key) else { return nil }
            return entries[index].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets the member named `key`, keeping its position when it exists and appending it
    /// otherwise; returns the value it replaced.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let index = index(forKey: key) {
            let old = entries[index].value
            entries[index].value = value
            return old
        }
        append(key, value)
        return nil
    }

    /// Removes the member named `key` and returns its value, shifting later members up.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = index(forKey: key) else { return nil }
        return remove(at: index).value
    }

    /// Removes and returns the member at `index`.
    @discardableResult
    public mutating func remove(at index: Int) -> Element {
        let removed = entries.remove(at: index)
        if entries.count > Self.indexThreshold {
            positions.removeValue(forKey: MemberName(removed.key))
            for position in index..<entries.count {
                positions[MemberName(entries[position].key)] = position
            }
        } else if !positions.isEmpty {
            positions = Dictionary()
        }
        return (removed.key, removed.value)
    }

    /// Reserves room for `capacity` members.
    public mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// Whether the member at `position` has the same bits here and in `other` (at the same
    /// position): the same key and value storage, as two versions of a copy-on-write object
    /// share a member neither changed. Implies the same member; `false` says nothing.
    func sharesMember(at position: Int, with other: JSONObject) -> Bool {
        entries.withUnsafeBufferPointer { mine in
            other.entries.withUnsafeBufferPointer { theirs in
                sameBits(mine.baseAddress! + position, theirs.baseAddress! + position)
            }
        }
    }

    /// Whether both objects share one storage, which implies they are equal; O(1).
    ///
    /// `false` says nothing: equal objects built separately are not identical.
    public func isIdentical(to other: JSONObject) -> Bool {
        entries.count == other.entries.count
            && entries.withUnsafeBufferPointer { mine in
                other.entries.withUnsafeBufferPointer { theirs in
                    mine.baseAddress == theirs.baseAddress
                }
            }
    }

    /// The address of the members' storage: the same for objects that share it.
    var storageAddress: UInt {
        entries.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// Calls `body` with the value at `index` for mutation in place (no copy of the value
    /// when the object's storage is uniquely referenced).
    mutating func modifyValue<Result, Failure: Error>(
        at index: Int,
        _ body: (inout JSONValue) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(&entries[index].value)
    }

    /// Appends a member whose key the caller knows to be absent.
    mutating func append(_ key: String, _ value: JSONValue) {
        entries.append(Entry(key: key, value: value))
        let count = entries.count
        if count > Self.indexThreshold {
            if count == Self.indexThreshold + 1 {
                positions.reserveCapacity(count * 2)
                for (position, entry) in entries.enumerated() {
                    positions[MemberName(entry.key)] = position
                }
            } else {
                positions[MemberName(key)] = count - 1
            }
        }
    }
}
