import Testing
import ReactorHubJSON

@Suite struct JSONPatchDiffTests {
    static let longList: JSONValue = ["items": .array((0..<10_000).map { .int($0) })]
    static let todos: JSONValue = [
        "items": .array((0..<10_000).map { ["id": .string("t\($0)"), "title": .string("Task number \($0)"), "done": false] }),
    ]

    private func items(_ value: JSONValue) -> [JSONValue] {
        value["items"]?.arrayValue ?? []
    }

    private func checkRoundTrip(_ old: JSONValue, _ new: JSONValue) throws -> [PatchOperation] {
        let patch = JSONPatch.diff(from: old, to: new)
        #expect(try JSONPatch.apply(patch, to: old) == new)
        return patch
    }

    @Test func equalDocumentsGiveAnEmptyPatch() throws {
        let rebuilt: JSONValue = ["items": .array((0..<10_000).map { .int($0) })]
        #expect(JSONPatch.diff(from: Self.longList, to: rebuilt) == [])
        #expect(JSONPatch.diff(from: Self.longList, to: Self.longList) == [])
        #expect(JSONPatch.diff(from: ["a": 1, "b": 2], to: ["b": 2, "a": 1.0]) == [])
    }

    @Test func appendingToALongArrayIsOneAdd() throws {
        var list = items(Self.longList)
        list.append("new")
        let patch = try checkRoundTrip(Self.longList, ["items": .array(list)])
        #expect(patch == [.add(path: "/items/10000", value: "new")])
    }

    @Test func insertingInTheMiddleOfALongArrayIsOneAdd() throws {
        var list = items(Self.longList)
        list.insert("new", at: 5_000)
        let patch = try checkRoundTrip(Self.longList, ["items": .array(list)])
        #expect(patch == [.add(path: "/items/5000", value: "new")])
    }

    @Test func removingFromALongArrayIsOneRemove() throws {
        var list = items(Self.longList)
        list.remove(at: 1_234)
        let patch = try checkRoundTrip(Self.longList, ["items": .array(list)])
        #expect(patch == [.remove(path: "/items/1234")])
    }

    @Test func togglingOneTodoAmongTenThousandIsOneReplaceOfItsField() throws {
        var list = items(Self.todos)
        list[1_234] = ["id": "t1234", "title": "Task number 1234", "done": true]
        let patch = try checkRoundTrip(Self.todos, ["items": .array(list)])
        #expect(patch == [.replace(path: "/items/1234/done", value: true)])
    }

    @Test func aWholesaleChangeOfASmallValueIsOneReplace() throws {
        let patch = try checkRoundTrip(["a": 1, "b": 2, "c": 3], ["x": [true], "y": .null])
        #expect(patch == [.replace(path: "", value: ["x": [true], "y": .null])])
        let nested = try checkRoundTrip(["keep": "this long value stays the same", "v": [1, 2, 3, 4, 5]], ["keep": "this long value stays the same", "v": [6, 7, 8, 9, 10]])
        #expect(nested == [.replace(path: "/v", value: [6, 7, 8, 9, 10])])
    }

    @Test func objectMembersAreDiffedOneByOneWithEscapedPaths() throws {
        let same = JSONValue.string(String(repeating: "unchanged ", count: 30))
        let old: JSONValue = ["a/b": 1, "m~n": ["x": 1], "gone": true, "same": same]
        let new: JSONValue = ["a/b": 2, "m~n": ["x": 1, "y": 2], "same": same, "new": .null]
        let patch = try checkRoundTrip(old, new)
        #expect(patch == [
            .replace(path: JSONPointer(tokens: ["a/b"]), value: 2),
            .add(path: JSONPointer(tokens: ["m~n", "y"]), value: 2),
            .remove(path: "/gone"),
            .add(path: "/new", value: .null),
        ])
        #expect(JSONPatch.jsonValue(of: patch)[0]?["path"] == "/a~1b")
        #expect(JSONPatch.jsonValue(of: patch)[1]?["path"] == "/m~0n/y")
    }

    @Test func separateInsertionAndRemovalInALongArrayAreTwoOperations() throws {
        var list = items(Self.todos)
        list.insert(["id": "new", "title": "Inserted", "done": false], at: 100)
        list.remove(at: 9_001)
        let patch = try checkRoundTrip(Self.todos, ["items": .array(list)])
        #expect(patch.count == 2)
        #expect(patch.map(\.name).sorted() == ["add", "remove"])
    }

    @Test func aMovedElementIsOneMove() throws {
        var list = items(Self.longList)
        let moved = list.remove(at: 10)
        list.insert(moved, at: 9_000)
        let patch = try checkRoundTrip(Self.longList, ["items": .array(list)])
        #expect(patch == [.move(from: "/items/10", path: "/items/9000")])
        var back = items(Self.longList)
        back.insert(back.remove(at: 9_000), at: 10)
        #expect(try checkRoundTrip(Self.longList, ["items": .array(back)]) == [.move(from: "/items/9000", path: "/items/10")])
    }

    @Test func aTypeChangeIsAReplace() throws {
        let patch = try checkRoundTrip(["v": [1, 2, 3]], ["v": ["k": 1]])
        #expect(patch == [.replace(path: "/v", value: ["k": 1])])
        #expect(try checkRoundTrip("a", 3) == [.replace(path: "", value: 3)])
    }

    @Test func manyScatteredChangesInALongArrayStillRoundTrip() throws {
        var list = items(Self.todos)
        for index in stride(from: 0, to: 10_000, by: 7) {
            list[index] = ["id": .string("t\(index)"), "title": "Changed", "done": true]
        }
        for index in stride(from: 9_990, to: 0, by: -97) {
            list.remove(at: index)
        }
        let patch = try checkRoundTrip(Self.todos, ["items": .array(list)])
        // 1,429 changed items and 103 removals: the differ may describe them op by op, or
        // replace the list when that is smaller, but never writes more than the one
        // replace of `/items` would (plus the op's own few bytes).
        let changed = Array(stride(from: 0, to: 10_000, by: 7)).count
        let removed = Array(stride(from: 9_990, to: 0, by: -97)).count
        #expect(patch.count == 1 || patch.count <= 2 * changed + removed)
        var patchText = JSONWriter()
        patchText.writePatch(patch)
        var listText = JSONWriter()
        listText.writeValue(.array(list))
        #expect(patchText.bytes.count <= listText.bytes.count + #"[{"op":"replace","path":"/items","value":}]"#.utf8.count)
    }

    @Test func sharedSubtreesAreSkippedAndChangedOnesDiffed() throws {
        let old = Self.todos
        var new = old
        if case .object(var root) = new, case .array(var list)? = root["items"] {
            root["items"] = nil
            list[9_999] = ["id": "t9999", "title": "Task number 9999", "done": true]
            root["items"] = .array(list)
            root["count"] = 10_000
            new = .object(root)
        }
        let patch = try checkRoundTrip(old, new)
        #expect(patch == [.replace(path: "/items/9999/done", value: true), .add(path: "/count", value: 10_000)])
    }
}
