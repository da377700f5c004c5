import Testing
import ReactorHubJSON

@Suite struct JSONValueTests {
    @Test func objectEqualityIgnoresMemberOrder() {
        let left: JSONValue = ["a": 1, "b": ["c": [1, 2], "d": .null]]
        let right: JSONValue = ["b": ["d": .null, "c": [1, 2]], "a": 1]
        #expect(left == right)
        #expect(left.hashValue == right.hashValue)
        #expect(left != ["a": 1, "b": ["c": [2, 1], "d": .null]])
    }

    @Test func numbersCompareByValueAcrossIntAndDouble() {
        #expect(JSONValue.int(1) == .double(1.0))
        #expect(JSONValue.int(1).hashValue == JSONValue.double(1.0).hashValue)
        #expect(JSONValue.int(0) == .double(-0.0))
        #expect(JSONValue.int(1) != .double(1.5))
        #expect(JSONValue.int(9_007_199_254_740_993) != .double(9_007_199_254_740_992))
        #expect(JSONValue.bool(true) != .int(1))
        #expect(JSONValue.string("1") != .int(1))
    }

    @Test func literalsBuildTheMatchingCases() {
        let value: JSONValue = ["n": .null, "b": true, "i": 3, "d": 3.0, "s": "x", "a": [1]]
        #expect(value["n"]?.isNull == true)
        #expect(value["b"]?.boolValue == true)
        #expect(value["i"].map { if case .int(3) = $0 { true } else { false } } == true)
        #expect(value["d"].map { if case .double(3.0) = $0 { true } else { false } } == true)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["a"]?[0] == 1)
        #expect(value["a"]?[1] == nil)
        #expect(value["missing"] == nil)
        #expect(value.objectValue?.keys == ["n", "b", "i", "d", "s", "a"])
    }

    @Test func kindsNameTheJSONTypes() {
        let values: [JSONValue] = [.null, true, 1, 1.5, "s", [], [:]]
        #expect(values.map(\.kind) == [.null, .boolean, .number, .number, .string, .array, .object])
        #expect(values.map(\.kind.phrase) == ["null", "a boolean", "a number", "a number", "a string", "an array", "an object"])
    }

    @Test func objectKeepsInsertionOrderThroughUpdatesAndRemovals() {
        var object: JSONObject = ["z": 1, "a": 2, "m": 3]
        object["a"] = 20
        object["b"] = 4
        object["z"] = nil
        #expect(object.keys == ["a", "m", "b"])
        #expect(object.values == [20, 3, 4])
        #expect(object.removeValue(forKey: "m") == 3)
        #expect(object.removeValue(forKey: "m") == nil)
        #expect(object.keys == ["a", "b"])
    }

    @Test func largeObjectsFindEveryKeyThroughTheirIndex() {
        var object = JSONObject()
        for number in 0..<1_000 {
            object["key\(number)"] = .int(number)
        }
        #expect(object.count == 1_000)
        #expect((0..<1_000).allSatisfy { object["key\($0)"] == .int($0) })
        for number in stride(from: 0, to: 1_000, by: 3) {
            object["key\(number)"] = nil
        }
        #expect(object.count == 666)
        #expect(object.index(forKey: "key1") == 0)
        #expect(object.index(forKey: "key999") == nil)
        #expect(object.index(forKey: "key998") == 665)
        #expect((0..<1_000).allSatisfy { object["key\($0)"] == ($0 % 3 == 0 ? nil : .int($0)) })
        while object.count > 3 {
            object.remove(at: 0)
        }
        #expect(object.keys == ["key995", "key997", "key998"])
        #expect(object["key997"] == 997)
    }

    @Test func copiesShareStorageUntilWritten() {
        let original: JSONValue = ["items": [["done": false]], "meta": ["n": 1]]
        var copy = original
        #expect(copy.isIdentical(to: original))
        if case .object(var object) = copy {
            object["meta"] = ["n": 2]
            copy = .object(object)
        }
        #expect(!copy.isIdentical(to: original))
        #expect(copy["items"]!.isIdentical(to: original["items"]!))
        #expect(!copy["meta"]!.isIdentical(to: original["meta"]!))
        let rebuilt: JSONValue = ["items": [["done": false]], "meta": ["n": 1]]
        #expect(rebuilt == original)
        #expect(!rebuilt.isIdentical(to: original))
    }

    @Test func descriptionIsCompactJSON() {
        let value: JSONValue = ["a": [1, "two", .null]]
        #expect(value.description == #"{"a":[1,"two",null]}"#)
        #expect(PatchOperation.remove(path: "/a").description == #"{"op":"remove","path":"/a"}"#)
    }
}
