import ReactorHubJSON
import Reactor
import ReactorTesting
import ReactorHubKinds
import Testing

/// The doc kind's bounds (`reactors.doc.*`): each refusal names its setting, and nothing
/// changes; and the state carries the edit's operations for the publisher.
@Suite("Doc kind limits")
struct DocLimitsTests {
    func object(_ text: String) -> JSONObject {
        (try? JSONParser().parse(text))?.objectValue ?? JSONObject()
    }

    @Test func anEditThatWouldNestDeeperThanMaxDepthIsRefusedNamingIt() async {
        let store = TestStore(reactor: DocReactor(limits: DocumentLimits(maxDepth: 3)))
        await store.send(.set(path: "/a", value: ["b": [:]])) { $0.document = self.object(#"{"a":{"b":{}}}"#) }
        await store.send(.set(path: "/a/b/c", value: 1)) { $0.document = self.object(#"{"a":{"b":{"c":1}}}"#) }
        await store.send(
            .set(path: "/a/b/c", value: []),
            refusedWith: "set does not apply: the document would be nested 4 levels deep at '/a/b/c', more than 3 (reactors.doc.maxDepth)"
        )
        await store.send(
            .patch(ops: [.object(["op": "add", "path": "/x", "value": [[[1]]]])]),
            refusedWith: "patch operation 0 (add): the document would be nested 4 levels deep at '/x', more than 3 (reactors.doc.maxDepth)"
        )
        await store.send(
            .patch(ops: [.object(["op": "copy", "from": "/a", "path": "/a/b/c"])]),
            refusedWith: "patch operation 0 (copy): the document would be nested 5 levels deep at '/a/b/c', more than 3 (reactors.doc.maxDepth)"
        )
        await store.send(
            .set(path: "", value: ["a": ["b": ["c": [:]]]]),
            refusedWith: "set does not apply: the document would be nested 4 levels deep at '', more than 3 (reactors.doc.maxDepth)"
        )
        await store.finish()
    }

    @Test func maxDepthIsAtMostTheDeepestStateEveryWalkIsSafeAt() {
        #expect(DocumentLimits(maxDepth: 10_000).maxDepth == JSONValue.maximumStateDepth)
    }

    @Test func containersPastMaxElementsAreRefusedNamingIt() async {
        let store = TestStore(reactor: DocReactor(limits: DocumentLimits(maxElements: 3)))
        await store.send(.set(path: "/a", value: [1, 2, 3])) { $0.document = self.object(#"{"a":[1,2,3]}"#) }
        await store.send(
            .set(path: "/a/-", value: 4),
            refusedWith: "set does not apply: the array at '/a' would hold 4 elements, more than 3 (reactors.doc.maxElements)"
        )
        await store.send(
            .set(path: "/b", value: ["x": [1, 2, 3, 4]]),
            refusedWith: "set does not apply: the value for '/b' holds an array or object of 4 elements, more than 3 (reactors.doc.maxElements)"
        )
        await store.send(.set(path: "/b", value: 1)) { $0.document = self.object(#"{"a":[1,2,3],"b":1}"#) }
        await store.send(.set(path: "/c", value: 1)) { $0.document = self.object(#"{"a":[1,2,3],"b":1,"c":1}"#) }
        await store.send(
            .set(path: "/d", value: 1),
            refusedWith: "set does not apply: the object at '' would have 4 members, more than 3 (reactors.doc.maxElements)"
        )
        await store.finish()
    }

    @Test func patchesOfMoreThanMaxOperationsAreRefusedNamingIt() async {
        let store = TestStore(reactor: DocReactor(limits: DocumentLimits(maxOperations: 2)))
        let add: JSONValue = .object(["op": "add", "path": "/n", "value": 1])
        await store.send(.patch(ops: [add, add])) { $0.document = self.object(#"{"n":1}"#) }
        await store.send(.patch(ops: [add, add, add]), refusedWith: "the patch has 3 operations, more than 2 (reactors.doc.maxOperations)")
        await store.finish()
    }

    @Test func theStateCarriesTheEditsOperationsForTheDocumentItWasMadeFrom() async throws {
        let store = TestStore(reactor: DocReactor())
        await store.send(.set(path: "/list", value: [1])) { $0.document = self.object(#"{"list":[1]}"#) }
        let before = JSONValue.object(store.state.document)
        await store.send(.patch(ops: [
            .object(["op": "test", "path": "/list/0", "value": 1]),
            .object(["op": "add", "path": "/list/-", "value": 2]),
            .object(["op": "add", "path": "/list/0", "value": 0]),
        ])) { $0.document = self.object(#"{"list":[0,1,2]}"#) }
        let step = try #require(store.state.jsonPatch)
        #expect(step.operations(from: before) == [.add(path: "/list/1", value: 2), .add(path: "/list/0", value: 0)])
        // Only for the document it applies to: an equal copy is not it.
        #expect(step.operations(from: try JSONValue(parsing: #"{"list":[1]}"#)) == nil)
        await store.finish()
    }

    @Test func anEditThatKeepsTheTextKeepsTheDocumentItself() async throws {
        let store = TestStore(reactor: DocReactor())
        await store.send(.set(path: "/n", value: 1)) { $0.document = self.object(#"{"n":1}"#) }
        let before = store.state.document
        await store.send(.set(path: "/n", value: 1)) { _ in }
        #expect(store.state.document.isIdentical(to: before))
        await store.finish()
    }
}
