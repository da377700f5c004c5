extension JSONObject {
    /// The members in insertion order: one array while the object is small; past
    /// `chunkedThreshold` members, a `Chunks` store, so that changing or adding one member
    /// of a large object whose storage is shared (the state a reactor edits while the
    /// published one still holds it) copies one chunk and one shard of the index, not every
    /// member: a `set` in a doc of 1,000 members copied 1,000 of them, an add to one of
    /// 9,000 its 9,000 positions too. Either way one reference, so that a `JSONObject`
    /// stays two words and a `JSONValue` as small as its `String` case makes it.
    struct Members: RandomAccessCollection, Sendable {
        /// Objects with more members than this are kept in chunks.
        static var chunkedThreshold: Int { 2 * Chunks.size }

        private enum Storage: Sendable {
            case flat([Entry])
            case chunked(Chunks)
        }

        private var storage: Storage

        init() {
            storage = .flat([])
        }

        /// Members without repeated keys, as given.
        init(flat entries: [Entry]) {
            storage = .flat(entries)
        }

        /// Past `chunkedThreshold` members, in chunks; nil if a key repeats.
        init?(chunking entries: [Entry]) {
            guard let chunks = Chunks(entries) else { return nil }
            storage = .chunked(chunks)
        }

        var isChunked: Bool {
            if case .chunked = storage { return true }
            return false
        }

        var startIndex: Int { 0 }

        var endIndex: Int {
            switch storage {
            case .flat(let entries): entries.count
            case .chunked(let chunks): chunks.count
            }
        }

        subscript(position: Int) -> Entry {
            switch storage {
            case .flat(let entries): entries[position]
            case .chunked(let chunks): chunks[position]
            }
        }

        /// The position of `name` in a chunked object (nil: no such member, or not chunked).
        func chunkedPosition(of name: MemberName) -> Int? {
            guard case .chunked(let chunks) = storage else { return nil }
            return chunks.position(of: name)
        }

        /// Calls `body` with the value at `position` for mutation in place: the storage is
        /// taken out of `self` first, so that it is uniquely referenced unless another
        /// object shares it (then the array, or the chunk, is copied).
        mutating func modifyValue<Result, Failure: Error>(
            at position: Int, _ body: (inout JSONValue) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            switch storage {
            case .flat(var entries):
                storage = .flat([])
                defer { storage = .flat(entries) }
                return try body(&entries[position].value)
            case .chunked(var chunks):
                storage = .flat([])
                if !isKnownUniquelyReferenced(&chunks) { chunks = chunks.copy() }
                defer { storage = .chunked(chunks) }
                return try chunks.modifyValue(at: position, body)
            }
        }

        /// Appends a member whose key is absent; past `chunkedThreshold` members, moves to
        /// chunks (which index their keys themselves).
        mutating func append(_ entry: Entry) {
            switch storage {
            case .flat(var entries):
                storage = .flat([])
                entries.append(entry)
                if entries.count > Self.chunkedThreshold, let chunks = Chunks(entries) {
                    storage = .chunked(chunks)
                } else {
                    storage = .flat(entries)
                }
            case .chunked(var chunks):
                storage = .flat([])
                if !isKnownUniquelyReferenced(&chunks) { chunks = chunks.copy() }
                chunks.append(entry)
                storage = .chunked(chunks)
            }
        }

        /// Removes the member at `position`, shifting later ones up (O(n), as in an array);
        /// back to one array at `chunkedThreshold` members or fewer.
        mutating func remove(at position: Int) -> Entry {
            switch storage {
            case .flat(var entries):
                storage = .flat([])
                let removed = entries.remove(at: position)
                storage = .flat(entries)
                return removed
            case .chunked:
                var all = Array(self)
                let removed = all.remove(at: position)
                if all.count > Self.chunkedThreshold, let chunks = Chunks(all) {
                    storage = .chunked(chunks)
                } else {
                    storage = .flat(all)
                }
                return removed
            }
        }

        mutating func reserveCapacity(_ capacity: Int) {
            guard case .flat(var entries) = storage, capacity <= Self.chunkedThreshold else { return }
            storage = .flat([])
            entries.reserveCapacity(capacity)
            storage = .flat(entries)
        }

        /// The address of the storage: the same for objects that share it (or, with no
        /// members, for every empty one: they are equal too).
        var storageAddress: UInt {
            switch storage {
            case .flat(let entries): entries.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            case .chunked(let chunks): UInt(bitPattern: Int(bitPattern: ObjectIdentifier(chunks)))
            }
        }

        /// Members that fit before the storage moves: the flat array's capacity; in chunks,
        /// as many as the chunks' store holds before it is copied (unbounded: `Int.max`).
        var capacity: Int {
            switch storage {
            case .flat(let entries): entries.capacity
            case .chunked: Int.max
            }
        }

        /// Each chunk's and each shard's storage, in order (none while flat): tests tell
        /// from them which ones two objects share.
        var chunkAddresses: (chunks: [UInt], shards: [UInt]) {
            guard case .chunked(let chunks) = storage else { return ([], []) }
            return chunks.addresses
        }
    }

    /// The members of a large object: chunks of `size` (all full but the last) and the
    /// keys' positions in `shardCount` dictionaries chosen by the key's hash. A class, so
    /// that `Members` is one reference; copied on write by `Members` (`copy()` copies the
    /// two lists, whose chunks and shards stay shared until written: arrays and
    /// dictionaries copy on write themselves).
    final class Chunks: @unchecked Sendable {
        static var shift: Int { 6 }
        /// 64 members a chunk.
        static var size: Int { 1 << shift }
        static var shardCount: Int { 64 }

        /// A key with its hash, computed once: it picks the shard and is the shard's hash.
        struct HashedName: Hashable {
            let name: MemberName
            let hash: Int

            init(_ name: MemberName) {
                self.name = name
                hash = name.hashValue
            }

            var shard: Int { hash & (Chunks.shardCount - 1) }

            static func == (left: HashedName, right: HashedName) -> Bool {
                left.hash == right.hash && left.name == right.name
            }

            func hash(into hasher: inout Hasher) {
                hasher.combine(hash)
            }
        }

        // `@unchecked Sendable`: changed only through a `Members` that holds the only
        // reference (`isKnownUniquelyReferenced`), as a value's storage is.
        private var chunks: [[Entry]]
        private var shards: [[HashedName: Int]]
        private(set) var count: Int

        /// Nil if a key repeats.
        init?(_ entries: [Entry]) {
            chunks = []
            chunks.reserveCapacity((entries.count + Self.size - 1) >> Self.shift)
            shards = Array(repeating: [:], count: Self.shardCount)
            count = 0
            for entry in entries {
                guard position(of: MemberName(entry.key)) == nil else { return nil }
                append(entry)
            }
        }

        private init(chunks: [[Entry]], shards: [[HashedName: Int]], count: Int) {
            self.chunks = chunks
            self.shards = shards
            self.count = count
        }

        func copy() -> Chunks {
            Chunks(chunks: chunks, shards: shards, count: count)
        }

        subscript(position: Int) -> Entry {
            precondition(position >= 0 && position < count, "JSONObject member index out of range")
            return chunks[position >> Self.shift][position & (Self.size - 1)]
        }

        func position(of name: MemberName) -> Int? {
            let key = HashedName(name)
            return shards[key.shard][key]
        }

        func modifyValue<Result, Failure: Error>(
            at position: Int, _ body: (inout JSONValue) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            precondition(position >= 0 && position < count, "JSONObject member index out of range")
            return try body(&chunks[position >> Self.shift][position & (Self.size - 1)].value)
        }

        /// Appends a member whose key is absent.
        func append(_ entry: Entry) {
            if let last = chunks.indices.last, chunks[last].count < Self.size {
                chunks[last].append(entry)
            } else {
                var chunk: [Entry] = []
                chunk.reserveCapacity(Self.size)
                chunk.append(entry)
                chunks.append(chunk)
            }
            let key = HashedName(MemberName(entry.key))
            shards[key.shard][key] = count
            count += 1
        }

        var addresses: (chunks: [UInt], shards: [UInt]) {
            (
                chunks.map { chunk in chunk.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } },
                // A dictionary is one reference to its storage.
                shards.map { unsafeBitCast($0, to: UInt.self) }
            )
        }
    }
}
