import JSONTestSupport
import Testing
@testable import ReactorHubJSON

/// Objects past `JSONObject.Members.chunkedThreshold` members keep them in chunks: the same
/// object to every reader (order, lookups, equality, hashing, text), and a change to a
/// shared one copies the chunk it touches, not the others.
@Suite struct LargeObjectTests {
    static let chunk = JSONObject.Chunks.size
    static let threshold = JSONObject.Members.chunkedThreshold

    static func object(_ count: Int, prefix: String = "k") -> JSONObject {
        var object = JSONObject()
        for number in 0..<count {
            object["\(prefix)\(number)"] = .int(number)
        }
        return object
    }

    @Test func anObjectStaysTwoWordsAndAValueNoLargerThanItsStringCase() {
        // Every array element and member of a document is a JSONValue: a larger object
        // would make every one of them larger (and values in existential boxes allocate).
        #expect(MemoryLayout<JSONObject>.size == 2 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<JSONValue>.size == MemoryLayout<String>.size + 1)
    }

    @Test func membersKeepTheirOrderAcrossChunkBoundaries() {
        for count in [Self.threshold - 1, Self.threshold, Self.threshold + 1, Self.threshold + Self.chunk, 1_000] {
            let object = Self.object(count)
            #expect(object.count == count)
            #expect(object.keys == (0..<count).map { "k\($0)" })
            #expect(object.values == (0..<count).map { JSONValue.int($0) })
            #expect((0..<count).allSatisfy { object["k\($0)"] == .int($0) && object.index(forKey: "k\($0)") == $0 })
            #expect(object["k\(count)"] == nil)
            #expect(object.chunkAddresses.chunks.count == (count > Self.threshold ? (count + Self.chunk - 1) / Self.chunk : 0))
        }
    }

    @Test func aChangeToASharedObjectCopiesOneChunk() {
        let original = Self.object(1_000)
        var copy = original
        copy["k500"] = "changed"
        let before = original.chunkAddresses.chunks, after = copy.chunkAddresses.chunks
        #expect(before.count == 16 && after.count == 16)
        // Member 500 is in Self.chunk 500 / 64 = 7; every other Self.chunk is still shared.
        #expect((0..<16).filter { before[$0] != after[$0] } == [7])
        #expect(original["k500"] == 500)
        #expect(copy["k500"] == "changed")
        #expect(!copy.isIdentical(to: original))
        #expect(copy != original)
        copy["k500"] = 500
        #expect(copy == original)
        #expect(copy.hashValue == original.hashValue)
    }

    @Test func addingToASharedObjectCopiesOneShardOfItsIndex() {
        let original = Self.object(1_000)
        var copy = original
        copy["new"] = "member"
        let before = original.chunkAddresses.shards, after = copy.chunkAddresses.shards
        #expect(before.count == 64 && after.count == 64)
        #expect((0..<64).filter { before[$0] != after[$0] }.count == 1)
        #expect(original["new"] == nil && original.count == 1_000)
        #expect(copy["new"] == "member" && copy.index(forKey: "new") == 1_000)
        let misplaced = (0..<1_000).filter { (number: Int) -> Bool in copy.index(forKey: "k\(number)") != number }
        #expect(misplaced == [])
        // Small objects keep one dictionary.
        #expect(Self.object(Self.threshold).chunkAddresses.shards.isEmpty)
    }

    @Test func appendingToASharedObjectLeavesTheOriginalAlone() {
        let original = Self.object(Self.threshold + 3)
        var copy = original
        for number in (Self.threshold + 3)..<(Self.threshold + Self.chunk + 10) {
            copy["k\(number)"] = .int(number)
        }
        #expect(original.count == Self.threshold + 3)
        #expect(original.keys == (0..<(Self.threshold + 3)).map { "k\($0)" })
        #expect(copy.keys == (0..<(Self.threshold + Self.chunk + 10)).map { "k\($0)" })
        #expect(original.chunkAddresses.chunks.dropLast() == copy.chunkAddresses.chunks.prefix(original.chunkAddresses.chunks.count - 1))
    }

    @Test func removalsShiftLaterMembersAndGoBackToOneArray() {
        var object = Self.object(300)
        #expect(object.removeValue(forKey: "k0") == 0)
        #expect(object.removeValue(forKey: "k150") == 150)
        #expect(object.removeValue(forKey: "k299") == 299)
        var expected = (0..<300).filter { ![0, 150, 299].contains($0) }
        #expect(object.keys == expected.map { "k\($0)" })
        #expect(expected.enumerated().allSatisfy { object.index(forKey: "k\($0.element)") == $0.offset })
        while object.count > Self.threshold - 2 {
            let key = object[object.count / 2].key
            object[key] = nil
            expected.removeAll { "k\($0)" == key }
        }
        #expect(object.chunkAddresses.chunks.isEmpty)
        #expect(object.keys == expected.map { "k\($0)" })
        #expect(expected.allSatisfy { object["k\($0)"] == .int($0) })
    }

    @Test func equalityAndHashIgnoreOrderBetweenChunkedObjects() {
        let forward = Self.object(500)
        var backward = JSONObject()
        for number in (0..<500).reversed() {
            backward["k\(number)"] = .int(number)
        }
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        backward["k3"] = 4
        #expect(forward != backward)
    }

    @Test func parsingAndWritingALargeObjectRoundTrips() throws {
        let text = "{" + (0..<700).map { #""m\#($0)":[\#($0),"v"]"# }.joined(separator: ",") + "}"
        let parsed = try JSONParser().parse(Array(text.utf8))
        guard case .object(let object) = parsed else {
            Issue.record("not an object: \(parsed.kind)")
            return
        }
        #expect(object.count == 700)
        #expect(object.chunkAddresses.chunks.count == 11)
        #expect(object["m699"] == [699, "v"])
        #expect(parsed.description == text)
        // A repeated key keeps its first position and its last value (the default parser).
        let repeated = try JSONParser().parse(Array(("{" + (0..<200).map { #""r\#($0 % 150)":\#($0)"# }.joined(separator: ",") + "}").utf8))
        #expect(repeated.objectValue?.count == 150)
        #expect(repeated["r10"] == 160)
        #expect(repeated.objectValue?.keys.first == "r0")
    }

    @Test func theDifferSkipsUnchangedMembersOfAChangedLargeObject() {
        let old = JSONValue.object(Self.object(1_000))
        var changed = Self.object(1_000)
        changed["k999"] = "last"
        changed["k1000"] = "new"
        let operations = JSONPatch.diff(from: old, to: .object(changed))
        #expect(operations == [.replace(path: "/k999", value: "last"), .add(path: "/k1000", value: "new")])
    }

    /// Random adds, replacements and removals across both thresholds (flat, indexed,
    /// chunked, and back), checked against a list of pairs after every step, with copies
    /// taken on the way that must keep what they held.
    @Test func randomEditsMatchAListOfPairs() {
        var random = SeededGenerator(seed: 38)
        var object = JSONObject()
        var model: [(key: String, value: Int)] = []
        var copies: [(object: JSONObject, model: [(key: String, value: Int)])] = []
        var largest = 0, smallestAfterLargest = Int.max
        for step in 0..<6_000 {
            // Grow towards ~400 members, then shrink towards ~0, twice.
            let growing = (step / 1_500) % 2 == 0
            let roll = Int(random.next() % 100)
            let key = "m\(random.next() % 600)"
            let position = model.firstIndex { $0.key == key }
            if roll < (growing ? 80 : 25) {
                object[key] = .int(step)
                if let position { model[position].value = step } else { model.append((key, step)) }
            } else if let position {
                #expect(object.removeValue(forKey: key) == .int(model[position].value))
                model.remove(at: position)
            } else if !model.isEmpty {
                let at = Int(random.next() % UInt64(model.count))
                #expect(object.remove(at: at).key == model[at].key)
                model.remove(at: at)
            }
            if step % 250 == 0 { copies.append((object, model)) }
            largest = max(largest, model.count)
            if step >= 1_500 && step < 3_000 { smallestAfterLargest = min(smallestAfterLargest, model.count) }
            if step % 97 == 0 || object.count == JSONObject.Members.chunkedThreshold + 1 {
                #expect(object.keys == model.map(\.key))
                #expect(object.values == model.map { JSONValue.int($0.value) })
                #expect(model.indices.allSatisfy { object.index(forKey: model[$0].key) == $0 })
            }
        }
        #expect(object.keys == model.map(\.key))
        #expect(copies.count == 24)
        // The walk went well into chunks and back to a flat object.
        #expect(largest > 300)
        #expect(smallestAfterLargest < JSONObject.indexThreshold)
        #expect(copies.contains { $0.object.count > JSONObject.Members.chunkedThreshold })
        for copy in copies {
            #expect(copy.object.keys == copy.model.map(\.key))
            #expect(copy.object.values == copy.model.map { JSONValue.int($0.value) })
            #expect(copy.model.allSatisfy { copy.object[$0.key] == .int($0.value) })
        }
    }
}
