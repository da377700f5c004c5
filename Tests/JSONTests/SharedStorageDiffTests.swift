import Testing
@testable import ReactorHubJSON
import JSONTestSupport

/// The differ skips members and elements two versions share (the same bits: the same key
/// and value storage) without copying them; these hold it to the same patches as before,
/// whether the versions share storage or were built separately.
@Suite struct SharedStorageDiffTests {
    private static func record(_ number: Int) -> JSONValue {
        ["id": .string("record-\(number)-with-a-long-enough-id"), "count": .int(number), "tags": ["a", "b"]]
    }

    private static let largeObject = JSONObject((0..<300).map { ("member\($0)", record($0)) })
    private static let large: JSONValue = .object(largeObject)

    /// `value` (an object) with its member `key` set to `member`.
    private static func setting(_ key: String, to member: JSONValue?, in value: JSONValue) -> JSONValue {
        var object = value.objectValue!
        object[key] = member
        return .object(object)
    }

    private func roundTrip(_ old: JSONValue, _ new: JSONValue, equality: JSONPatch.Equality = .json) throws -> [PatchOperation] {
        let patch = JSONPatch.diff(from: old, to: new, equality: equality)
        #expect(try JSONPatch.apply(patch, to: old) == new)
        return patch
    }

    @Test func aChangedMemberOfASharedObjectIsTheOnlyOperation() throws {
        for equality in [JSONPatch.Equality.json, .text] {
            let changed = Self.setting("member150", to: Self.setting("count", to: -1, in: Self.large["member150"]!), in: Self.large)
            let patch = try roundTrip(Self.large, changed, equality: equality)
            #expect(patch == [.replace(path: JSONPointer(tokens: ["member150", "count"]), value: .int(-1))])
        }
    }

    @Test func removedAndAddedMembersOfASharedObject() throws {
        var object = Self.largeObject
        object["member0"] = nil
        object["member299"] = nil
        object["extra"] = .string("new")
        let changed = JSONValue.object(object)
        let patch = try roundTrip(Self.large, changed)
        #expect(patch == [
            .remove(path: JSONPointer(tokens: ["member0"])),
            .remove(path: JSONPointer(tokens: ["member299"])),
            .add(path: JSONPointer(tokens: ["extra"]), value: .string("new")),
        ])
    }

    @Test func objectsBuiltSeparatelyGiveTheSamePatchAsSharedOnes() throws {
        let rebuilt: JSONValue = .object(JSONObject((0..<300).map { ("member\($0)", Self.record($0)) }))
        #expect(JSONPatch.diff(from: Self.large, to: rebuilt) == [])
        let changed = Self.setting("member7", to: Self.setting("tags", to: ["a"], in: rebuilt["member7"]!), in: rebuilt)
        let patch = try roundTrip(Self.large, changed)
        #expect(patch == [.remove(path: JSONPointer(tokens: ["member7", "tags", "1"]))])
    }

    @Test func elementsOfASharedArray() throws {
        let list: [JSONValue] = (0..<1_000).map { Self.record($0) }
        var replaced = list
        replaced[500] = Self.setting("count", to: 7, in: list[500])
        #expect(try roundTrip(.array(list), .array(replaced)) == [
            .replace(path: JSONPointer(tokens: ["500", "count"]), value: .int(7)),
        ])
        var inserted = list
        inserted.insert(.string("in the middle"), at: 400)
        #expect(try roundTrip(.array(list), .array(inserted)) == [
            .add(path: JSONPointer(tokens: ["400"]), value: .string("in the middle")),
        ])
        var removed = list
        removed.remove(at: 999)
        removed.remove(at: 0)
        let patch = try roundTrip(.array(list), .array(removed))
        // Aligned from the front: the first element, then the last at its new index.
        #expect(patch == [
            .remove(path: JSONPointer(tokens: ["0"])),
            .remove(path: JSONPointer(tokens: ["998"])),
        ])
    }

    /// Random pairs whose second document is an edit of the first (sharing what the edit
    /// left): the same patch as between copies that share nothing, parsed from their text.
    @Test func sharingChangesNoPatchOfTwoThousandRandomPairs() throws {
        var documents = RandomDocuments(seed: 0x5EED_0051)
        var operations = 0
        for _ in 0..<2_000 {
            let (old, new) = documents.pair()
            let apartOld = try JSONValue(parsing: old.serialized()), apartNew = try JSONValue(parsing: new.serialized())
            for equality in [JSONPatch.Equality.json, .text] {
                let shared = JSONPatch.diff(from: old, to: new, equality: equality)
                #expect(shared == JSONPatch.diff(from: apartOld, to: apartNew, equality: equality), "\(old) → \(new)")
                operations += shared.count
            }
        }
        #expect(operations > 2_000)
    }

    @Test func sameBitsImpliesTheSameValueAndTellsDifferentScalarsApart() {
        let values: [JSONValue] = [.null, true, false, 0, 1, -1, 0.0, -0.0, 2.5, "a", "b", "a long string past the small-string size", [1], ["k": 1]]
        let copies = values
        values.withUnsafeBufferPointer { mine in
            copies.withUnsafeBufferPointer { theirs in
                for (position, value) in values.enumerated() {
                    // A copy shares the storage: the same bits.
                    #expect(sameBits(mine.baseAddress! + position, theirs.baseAddress! + position), "\(value)")
                    for other in values.indices where other != position {
                        #expect(!sameBits(mine.baseAddress! + position, theirs.baseAddress! + other), "\(value) and \(values[other])")
                    }
                }
            }
        }
    }
}
