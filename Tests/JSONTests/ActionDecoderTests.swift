import Testing
import ReactorHubJSON

@Suite struct ActionDecoderTests {
    let decoder = ActionDecoder()

    /// Decodes `text` both ways an instance may get it, and checks that they agree: from
    /// the bytes of a message that carries it (as a WebSocket action arrives) and from a
    /// parsed value (an HTTP body, a forwarded action). Returns the bytes' outcome.
    private func decode<Action: Decodable>(_ type: Action.Type, _ text: String) throws -> Action {
        let frame = Array(#"{"type":"action", "reactor":"k/1", "action": \#(text) , "ref":1}"#.utf8)
        let range = try #require(try JSONParser().parse(frame, rangesOf: ["action"], unparsed: "action").ranges[0])
        let fromBytes = Result { () throws(ActionDecodingError) in
            var name = ""
            return (action: try decoder.decode(type, from: ActionPayload(checkedJSON: frame, range: range), name: &name), name: name)
        }
        let fromValue = Result { () throws(ActionDecodingError) in
            var name = ""
            return (action: try decoder.decode(type, from: ActionPayload(try! JSONValue(parsing: text)), name: &name), name: name)
        }
        switch (fromBytes, fromValue) {
        case (.success(let bytes), .success(let value)):
            #expect(String(describing: bytes.action) == String(describing: value.action), "\(text)")
            #expect(bytes.name == value.name, "\(text)")
        case (.failure(let bytes), .failure(let value)):
            #expect(bytes == value, "\(text)")
        default:
            Issue.record("\(text): from bytes \(fromBytes), from a value \(fromValue)")
        }
        return try fromBytes.get().action
    }

    private func error<Action: Decodable>(_ type: Action.Type, _ text: String) -> ActionDecodingError? {
        do {
            let action = try decode(type, text)
            Issue.record("decoded \(action) from \(text)")
            return nil
        } catch let error as ActionDecodingError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func aBareStringIsACaseWithoutValues() throws {
        #expect(try decode(CounterAction.self, #""increase""#) == .increase)
        #expect(try decode(TodoAction.self, #""clearCompleted""#) == .clearCompleted)
        #expect(try decode(RefreshAction.self, #""refresh""#) == .refresh)
    }

    @Test func anObjectNamesTheCaseInTypeAndItsValuesByLabel() throws {
        #expect(try decode(CounterAction.self, #"{"type":"decrease"}"#) == .decrease)
        #expect(try decode(WeatherAction.self, #"{"type":"searchCityWeather","city":"Seoul"}"#) == .searchCityWeather(city: "Seoul"))
        #expect(try decode(TodoAction.self, #"{"title":"t","id":"7","type":"rename"}"#) == .rename(id: "7", title: "t"))
        #expect(try decode(TodoAction.self, #"{"type":"move","from":0,"to":2.0}"#) == .move(from: 0, to: 2))
    }

    @Test func oneUnlabeledValueIsCalledValueAndSeveralAreNumbered() throws {
        #expect(try decode(MixedAction.self, #"{"type":"note","value":"Buy milk"}"#) == .note("Buy milk"))
        #expect(try decode(MixedAction.self, #"{"type":"pair","_0":1,"_1":"b"}"#) == .pair(1, "b"))
        #expect(try decode(MixedAction.self, #"{"type":"level","value":"low"}"#) == .level(.low))
    }

    @Test func optionalMembersMayBeAbsentOrNull() throws {
        #expect(try decode(MixedAction.self, #"{"type":"flag","on":true}"#) == .flag(on: true, label: nil, count: nil))
        #expect(try decode(MixedAction.self, #"{"type":"flag","on":false,"label":null,"count":3}"#) == .flag(on: false, label: nil, count: 3))
        #expect(try decode(DocAction.self, #"{"type":"emit","name":"e"}"#) == .emit(name: "e", value: nil))
        #expect(try decode(DocAction.self, #"{"type":"emit","name":"e","value":{"k":[1]}}"#) == .emit(name: "e", value: ["k": [1]]))
        #expect(try decode(MixedAction.self, #"{"type":"mark","rank":2}"#) == .mark(rank: .second))
    }

    @Test func structuredMembersDecodeThroughTheirOwnConformances() throws {
        #expect(try decode(MixedAction.self, #"{"type":"place","at":{"x":1,"y":2},"tags":["a"]}"#) == .place(at: Point(x: 1, y: 2), tags: ["a"]))
        #expect(try decode(DocAction.self, #"{"type":"patch","ops":[{"op":"remove","path":"/a"}]}"#) == .patch(ops: [["op": "remove", "path": "/a"]]))
        #expect(try decode(DocAction.self, #"{"type":"set","path":"/a","value":null}"#) == .set(path: "/a", value: .null))
        #expect(try decode(MixedAction.self, #"{"type":"scale","factor":2}"#) == .scale(factor: 2))
    }

    @Test func anUnknownTypeListsTheAvailableActions() {
        let refused = error(CounterAction.self, #"{"type":"jump"}"#)
        #expect(refused?.code == .unknownAction)
        #expect(refused?.code.rawValue == "unknown_action")
        #expect(refused?.action == "jump")
        #expect(refused?.problem == .unknownAction(available: ["increase", "decrease"]))
        #expect(refused?.message == "unknown action 'jump'; actions: increase, decrease")
        #expect(error(TodoAction.self, #""jump""#)?.problem == .unknownAction(available: ["add", "toggle", "rename", "remove", "move", "clearCompleted"]))
        #expect(error(RefreshAction.self, #""jump""#)?.problem == .unknownAction(available: ["refresh"]))
    }

    @Test func aMisspeltMemberIsNamedWithTheMembersTheActionTakes() {
        let refused = error(WeatherAction.self, #"{"type":"searchCityWeather","citty":"Seoul"}"#)
        #expect(refused?.code == .invalidAction)
        #expect(refused?.code.rawValue == "invalid_action")
        #expect(refused?.message == "action 'searchCityWeather' has no member 'citty'; members: city (string)")
        let missing = error(WeatherAction.self, #"{"type":"searchCityWeather"}"#)
        #expect(missing?.message == "action 'searchCityWeather' is missing member 'city' (string)")
        let extra = error(WeatherAction.self, #"{"type":"searchCityWeather","city":"Seoul","citty":"x"}"#)
        #expect(extra?.problem == .unknownMember(member: "citty", members: [.init(name: "city", type: "string")]))
        #expect(extra?.message == "action 'searchCityWeather' has no member 'citty'; members: city (string)")
        #expect(error(CounterAction.self, #"{"type":"increase","by":2}"#)?.message == "action 'increase' has no member 'by'; it takes no members")
        #expect(error(MixedAction.self, #"{"type":"note","_0":"x","value":"y"}"#)?.message == "action 'note' has no member '_0'; members: value (string)")
    }

    @Test func aMemberOfTheWrongJSONTypeSaysWhatIsExpected() {
        let refused = error(WeatherAction.self, #"{"type":"searchCityWeather","city":12}"#)
        #expect(refused?.problem == .wrongMemberType(member: "city", expected: "string", got: "a number"))
        #expect(refused?.message == "member 'city' of action 'searchCityWeather' must be a string, got a number")
        #expect(error(TodoAction.self, #"{"type":"move","from":1.5,"to":2}"#)?.message == "member 'from' of action 'move' must be an integer, got a number with a fraction")
        #expect(error(TodoAction.self, #"{"type":"move","from":"1","to":2}"#)?.message == "member 'from' of action 'move' must be an integer, got a string")
        #expect(error(MixedAction.self, #"{"type":"flag","on":true,"count":"3"}"#)?.message == "member 'count' of action 'flag' must be an integer, got a string")
        #expect(error(DocAction.self, #"{"type":"patch","ops":{}}"#)?.message == "member 'ops' of action 'patch' must be an array, got an object")
        #expect(error(MixedAction.self, #"{"type":"place","at":[1,2],"tags":[]}"#)?.message == "member 'at' of action 'place' must be an object, got an array")
    }

    @Test func invalidValuesInsideAMemberNameThePath() {
        #expect(error(MixedAction.self, #"{"type":"place","at":{"x":1,"y":"2"},"tags":[]}"#)?.message == "member 'at' of action 'place' is invalid: at.y: Expected an integer but found a string instead.")
        #expect(error(MixedAction.self, #"{"type":"level","value":"urgent"}"#)?.problem == .invalidMember(member: "value", reason: "Cannot initialize Priority from invalid String value urgent"))
    }

    @Test func aMissingMemberNamesItsType() {
        #expect(error(TodoAction.self, #"{"type":"rename","id":"1"}"#)?.message == "action 'rename' is missing member 'title' (string)")
        #expect(error(TodoAction.self, #"{"type":"move","to":1}"#)?.problem == .missingMember(member: "from", expected: "integer"))
        #expect(error(MixedAction.self, #"{"type":"flag"}"#)?.problem == .missingMember(member: "on", expected: "boolean"))
    }

    @Test func payloadsThatAreNoActionAreRefused() {
        #expect(error(CounterAction.self, "3")?.message == "an action must be an object with a 'type' member, or a string, got a number")
        #expect(error(CounterAction.self, #"["increase"]"#)?.problem == .notAnAction(got: "an array"))
        #expect(error(CounterAction.self, #"{"name":"increase"}"#)?.problem == .missingType)
        #expect(error(CounterAction.self, #"{"name":"increase"}"#)?.message == "an action object must have a 'type' member naming the action")
        #expect(error(CounterAction.self, #"{"type":1}"#)?.message == "member 'type' of an action must be a string, got a number")
    }

    @Test func rawValueEnumsDecodeFromTheirRawName() throws {
        #expect(try decode(RawAction.self, #""stop""#) == .stop)
        #expect(try decode(RawAction.self, #"{"type":"start"}"#) == .start)
        #expect(error(RawAction.self, #""pause""#)?.problem == .unknownAction(available: ["start", "stop"]))
        #expect(error(RawAction.self, #"{"type":"stop","x":1}"#)?.message == "action 'stop' has no member 'x'; it takes no members")
    }

    @Test func handWrittenConformancesStillDecodeAndFailCleanly() throws {
        #expect(try decode(HandWritten.self, #""ping""#) == .ping)
        #expect(error(HandWritten.self, #""pong""#)?.code == .unknownAction)
    }

    @Test func theBytesFormReadsWhatTheValueFormReads() throws {
        // Spaces, escapes, a repeated key (the last wins, as in a parsed object), nesting.
        #expect(try decode(TodoAction.self, #" { "type" : "rename" , "id" : "1", "title" : "Milk \u0026 \"eggs\"" } "#)
            == .rename(id: "1", title: #"Milk & "eggs""#))
        #expect(try decode(TodoAction.self, #"{"type":"rename","id":"1","title":"a","title":"b"}"#) == .rename(id: "1", title: "b"))
        #expect(try decode(TodoAction.self, #"{"type":"clearCompleted","type":"rename","id":"2","title":"c"}"#) == .rename(id: "2", title: "c"))
        #expect(error(TodoAction.self, #"{"type":"rename","type":3,"id":"2","title":"c"}"#)?.problem == .typeNotAString(got: "a number"))
        #expect(error(CounterAction.self, #"{}"#)?.problem == .missingType)
        #expect(error(CounterAction.self, "null")?.problem == .notAnAction(got: "null"))
    }
}
