import Testing
import ReactorHubJSON

@Suite struct JSONPatchApplyTests {
    let document: JSONValue = ["title": "list", "items": [["id": "a", "done": false], ["id": "b", "done": true]], "tags": ["x"]]

    @Test func appliesAllSixOperationsInOrder() throws {
        let patch: [PatchOperation] = [
            .test(path: "/items/0/id", value: "a"),
            .replace(path: "/items/0/done", value: true),
            .add(path: "/items/-", value: ["id": "c", "done": false]),
            .move(from: "/items/0", path: "/items/2"),
            .copy(from: "/tags/0", path: "/tags/-"),
            .remove(path: "/title"),
        ]
        let result = try JSONPatch.apply(patch, to: document)
        #expect(result == [
            "items": [["id": "b", "done": true], ["id": "c", "done": false], ["id": "a", "done": true]],
            "tags": ["x", "x"],
        ])
    }

    @Test func failureLeavesTheOriginalDocumentAndItsSharedStorageUntouched() {
        let original = document
        let before = original.serialized()
        let patch: [PatchOperation] = [
            .replace(path: "/items/0/done", value: true),
            .remove(path: "/tags/0"),
            .remove(path: "/nothing"),
        ]
        #expect(throws: JSONPatchError(code: .pathNotFound, operationIndex: 2, operation: "remove", reason: "path '/nothing' does not exist")) {
            try JSONPatch.apply(patch, to: original)
        }
        #expect(original.serialized() == before)
        #expect(original.isIdentical(to: document))
    }

    @Test func successDoesNotWriteThroughToTheOriginal() throws {
        let original = document
        let result = try JSONPatch.apply([.replace(path: "/items/1/done", value: false)], to: original)
        #expect(original["items"]?[1]?["done"] == true)
        #expect(result["items"]?[1]?["done"] == false)
        #expect(result["tags"]!.isIdentical(to: original["tags"]!))
        #expect(result["items"]![0]!.isIdentical(to: original["items"]![0]!))
    }

    @Test func testComparesWithJSONEquality() throws {
        let doc: JSONValue = ["n": 1, "o": ["a": 1, "b": 2]]
        _ = try JSONPatch.apply([.test(path: "/n", value: 1.0), .test(path: "/o", value: ["b": 2, "a": 1])], to: doc)
        #expect(throws: JSONPatchError.self) { try JSONPatch.apply([.test(path: "/n", value: "1")], to: doc) }
    }

    @Test func moveIntoItsOwnChildIsRefused() {
        #expect(throws: JSONPatchError(code: .invalidMove, operationIndex: 0, operation: "move", reason: "cannot move '/items' into its own child '/items/0'")) {
            try JSONPatch.apply([.move(from: "/items", path: "/items/0")], to: document)
        }
    }

    @Test func moveToTheSameLocationChecksTheSourceExists() throws {
        #expect(try JSONPatch.apply([.move(from: "/tags", path: "/tags")], to: document) == document)
        #expect(throws: JSONPatchError(code: .pathNotFound, operationIndex: 0, operation: "move", reason: "source path '/nope' does not exist")) {
            try JSONPatch.apply([.move(from: "/nope", path: "/nope")], to: document)
        }
    }

    @Test func errorsSayWhichOperationFailedAndWhy() {
        let cases: [([PatchOperation], String)] = [
            ([.add(path: "/items/5", value: 1)], "patch operation 0 (add): index 5 in '/items/5' is out of range; valid: at most 2"),
            ([.remove(path: "/items/-")], "patch operation 0 (remove): '-' in '/items/-' designates the end of the array, where no element exists"),
            ([.replace(path: "/title/x", value: 1)], "patch operation 0 (replace): path '/title/x' cannot be reached: '/title' is a string, not an object or array"),
            ([.test(path: "/tags", value: [])], #"patch operation 0 (test): the value at '/tags' is an array of 1 element, not an array of 0 elements"#),
            ([.remove(path: "")], "patch operation 0 (remove): the whole document cannot be removed"),
            ([.test(path: "/title", value: "list"), .add(path: "/a/b", value: 1)], "patch operation 1 (add): path '/a/b' cannot be reached: '/a' does not exist"),
        ]
        for (patch, message) in cases {
            do {
                _ = try JSONPatch.apply(patch, to: document)
                Issue.record("\(patch) should fail")
            } catch {
                #expect(error.message == message)
            }
        }
    }

    @Test func addReplacesTheWholeDocumentAtTheRootPointer() throws {
        #expect(try JSONPatch.apply([.add(path: "", value: [1])], to: document) == [1])
    }

    @Test func readsPatchesFromJSONWithErrorsNamingTheOperation() {
        let cases: [(JSONValue, String)] = [
            (["op": "add"], "patch is not an array"),
            ([1], "patch operation 0: an operation must be an object, got a number"),
            ([["op": "add", "path": "/a", "value": 1], ["path": "/b"]], "patch operation 1: missing member 'op'"),
            ([["op": 1]], "patch operation 0: member 'op' must be a string, got a number"),
            ([["op": "add", "path": "/a"]], "patch operation 0 (add): missing member 'value'"),
            ([["op": "move", "path": "/a"]], "patch operation 0 (move): missing member 'from'"),
            ([["op": "remove", "path": 3]], "patch operation 0 (remove): member 'path' must be a JSON Pointer string, got a number"),
            ([["op": "remove", "path": "a"]], "patch operation 0 (remove): JSON Pointer 'a' must be empty or start with '/'"),
            ([["op": "jump", "path": "/a"]], "patch operation 0: unknown op 'jump'; ops: add, remove, replace, move, copy, test"),
        ]
        for (json, message) in cases {
            do {
                _ = try JSONPatch.operations(from: json)
                Issue.record("\(json) should be refused")
            } catch {
                if message == "patch is not an array" {
                    #expect(error.code == .invalidPatch)
                    #expect(error.operationIndex == nil)
                } else {
                    #expect(error.message == message)
                }
            }
        }
    }

    @Test func operationsRoundTripThroughTheirJSONForm() throws {
        let operations: [PatchOperation] = [
            .add(path: "/a~1b", value: [1]), .remove(path: "/0"), .replace(path: "", value: .null),
            .move(from: "/x", path: "/y"), .copy(from: "/~0", path: "/z"), .test(path: "/t", value: ["k": true]),
        ]
        let json = JSONPatch.jsonValue(of: operations)
        #expect(json[0] == ["op": "add", "path": "/a~1b", "value": [1]])
        #expect(json[3] == ["op": "move", "from": "/x", "path": "/y"])
        #expect(try JSONPatch.operations(from: json) == operations)
        #expect(operations.map(\.name) == ["add", "remove", "replace", "move", "copy", "test"])
        #expect(operations.map(\.path.description) == ["/a~1b", "/0", "", "/y", "/z", "/t"])
    }
}
