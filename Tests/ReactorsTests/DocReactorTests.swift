import ReactorHubJSON
import Reactor
import ReactorTesting
import ReactorHubKinds
import Testing

@Suite("Shipped doc kind")
struct DocReactorTests {
    func object(_ text: String) -> JSONObject {
        (try? JSONParser().parse(text))?.objectValue ?? JSONObject()
    }

    @Test func setAddsReplacesAndAppends() async {
        let store = TestStore(reactor: DocReactor())
        await store.send(.set(path: "/title", value: "Notes")) { $0.document = self.object(#"{"title":"Notes"}"#) }
        await store.send(.set(path: "/tags", value: ["a"])) { $0.document = self.object(#"{"title":"Notes","tags":["a"]}"#) }
        await store.send(.set(path: "/tags/-", value: "b")) { $0.document = self.object(#"{"title":"Notes","tags":["a","b"]}"#) }
        await store.send(.set(path: "/tags/2", value: "c")) { $0.document = self.object(#"{"title":"Notes","tags":["a","b","c"]}"#) }
        await store.send(.set(path: "/tags/0", value: "z")) { $0.document = self.object(#"{"title":"Notes","tags":["z","b","c"]}"#) }
        await store.send(.set(path: "/title", value: .null)) { $0.document = self.object(#"{"title":null,"tags":["z","b","c"]}"#) }
        await store.send(.set(path: "", value: .object(["fresh": true]))) { $0.document = self.object(#"{"fresh":true}"#) }
        await store.finish()
    }

    @Test func operationsThatDoNotApplyAreRefused() async {
        let store = TestStore(reactor: DocReactor())
        await store.send(.set(path: "/a", value: [1])) { $0.document = self.object(#"{"a":[1]}"#) }
        await store.send(.set(path: "/missing/b", value: 1), refusedWith: "cannot set '/missing/b': '/missing' does not exist")
        await store.send(.set(path: "/a/5", value: 1), refusedWith: "cannot set '/a/5': '5' is not an index of the array at '/a' (0...1 or -)")
        await store.send(.set(path: "", value: [1]), refusedWith: "the root can only be set to an object, got an array")
        await store.send(.set(path: "no-slash", value: 1), refusedWith: "'no-slash' is not a JSON Pointer: JSON Pointer 'no-slash' must be empty or start with '/'")
        await store.send(.remove(path: ""), refusedWith: "the root cannot be removed; set it to {} to empty the document")
        await store.send(.remove(path: "/b"), refusedWith: "remove does not apply: path '/b' does not exist")
        await store.finish()
    }

    @Test func patchIsAllOrNothingWithTest() async {
        let store = TestStore(reactor: DocReactor())
        await store.send(.patch(ops: [.object(["op": "add", "path": "/n", "value": 1])])) { $0.document = self.object(#"{"n":1}"#) }
        await store.send(.patch(ops: [
            .object(["op": "test", "path": "/n", "value": 1]),
            .object(["op": "replace", "path": "/n", "value": 2]),
        ])) { $0.document = self.object(#"{"n":2}"#) }
        await store.send(
            .patch(ops: [
                .object(["op": "replace", "path": "/n", "value": 3]),
                .object(["op": "test", "path": "/n", "value": 1]),
            ]),
            refusedWith: "patch operation 1 (test): the value at '/n' is 3, not 1"
        )
        #expect(store.state.document["n"] == 2)
        await store.finish()
    }

    @Test func documentsOverMaxBytesAreRefused() async {
        let store = TestStore(reactor: DocReactor(maxBytes: 20))
        await store.send(.set(path: "/a", value: "12345")) { $0.document = self.object(#"{"a":"12345"}"#) }
        await store.send(.set(path: "/b", value: "1234567890"), refusedWith: "the document would exceed 20 bytes of JSON (reactors.doc.maxBytes)")
        await store.finish()
    }

    @Test func emitPulsesAnEventEveryTimeEvenWhenEqual() async {
        let store = TestStore(reactor: DocReactor())
        await store.send(.emit(name: "cursor", value: .object(["x": 1]))) { $0.event = DocEvent(name: "cursor", value: .object(["x": 1])) }
        await store.send(.emit(name: "cursor", value: .object(["x": 1]))) { $0.event = DocEvent(name: "cursor", value: .object(["x": 1])) }
        await store.send(.emit(name: "ping", value: nil)) { $0.event = DocEvent(name: "ping", value: .null) }
        await store.finish()
        #expect(store.state.$event.valueUpdatedCount == 3)
    }

    @Test func stateJSONIsTheDocumentItselfWithoutThePulse() throws {
        var state = DocReactor.State(document: object(#"{"event":"kept","n":1}"#))
        state.event = DocEvent(name: "x", value: 1)
        let recorder = PulseRecorder()
        var encoder = JSONValueEncoder()
        encoder.userInfo[PulseRecorder.userInfoKey] = recorder
        let json = try encoder.encode(state)
        #expect(json == .object(["event": "kept", "n": 1]))
        #expect(recorder.records.map(\.name) == ["event"])
        let decoded = try JSONValueDecoder().decode(DocReactor.State.self, from: json)
        #expect(decoded.document == state.document)
    }

    func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func json(_ value: any Encodable) throws -> JSONValue {
        try JSONValueEncoder().encode(value)
    }

    @Test func jsonValueAndPulseRecordsAgreeWithEncodingUnderARecorder() throws {
        var state = DocReactor.State(document: object(#"{"event":1,"b":[1,2.5,"x"],"a":{"n":null}}"#))
        for round in 0..<2 {
            let recorder = PulseRecorder()
            var encoder = JSONValueEncoder()
            encoder.userInfo[PulseRecorder.userInfoKey] = recorder
            let encoded = try encoder.encode(state)
            #expect(text(encoded) == text(state.jsonValue))
            let recorded = recorder.records
            let listed = state.pulseRecords
            #expect(recorded.map(\.name) == listed.map(\.name))
            #expect(recorded.map(\.updateCount) == listed.map(\.updateCount))
            #expect(listed.map(\.updateCount) == [UInt(round)])
            #expect(try recorded.map { text(try json($0.value)) } == listed.map { text(try json($0.value)) })
            state.event = DocEvent(name: "cursor", value: .int(round))
        }
    }

    /// `reduce` keeps the records it made with the pulse; a change of the document after an
    /// emit keeps them.
    @Test func pulseRecordsFollowEmitsThroughReduce() throws {
        let reactor = DocReactor()
        var state = reactor.initialState
        #expect(state.pulseRecords.map(\.updateCount) == [0])
        for round in 1...2 {
            state = reactor.reduce(state: state, mutation: .emit(DocEvent(name: "cursor", value: .int(round))))
            state.document = object(#"{"n":\#(round)}"#)
            let listed = state.pulseRecords
            #expect(listed.map(\.name) == ["event"])
            #expect(listed.map(\.updateCount) == [UInt(round)])
            #expect(try listed.map { text(try json($0.value)) } == [#"{"name":"cursor","value":\#(round)}"#])
        }
    }
}
