import ReactorHubJSON
import Testing

/// A struct is not an action: it has no case to name.
private struct NotAnAction: Encodable { var x = 1 }

/// A case whose value is labeled `type`, which the wire reserves.
private enum Reserved: Encodable { case bad(type: String) }

/// A value that cannot be encoded (JSON has no NaN).
private enum Scaled: Encodable { case scale(factor: Double) }

/// Several unlabeled values of which the second is optional: `_0` stays `_0` even when
/// the second is nil and left out.
private enum OptionalPair: Codable, Equatable { case pair(Int, String?) }

/// A labeled and an unlabeled value: the unlabeled one is `value`, as the decoder reads it.
private enum Mixed: Codable, Equatable { case tagged(Int, label: String) }

@Suite struct ActionEncoderTests {
    let encoder = ActionEncoder()
    let decoder = ActionDecoder()

    private func wire(_ action: some Encodable) throws -> String {
        var writer = JSONWriter()
        writer.writeValue(try encoder.encode(action))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func roundTrip<Action: Codable & Equatable>(_ action: Action, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoded = try encoder.encode(action)
        let decoded = try decoder.decode(Action.self, from: encoded)
        #expect(decoded == action, "\(encoded)", sourceLocation: sourceLocation)
    }

    private func refusal(_ action: some Encodable) -> ActionEncodingError? {
        do {
            let encoded = try encoder.encode(action)
            Issue.record("encoded \(encoded)")
            return nil
        } catch {
            return error
        }
    }

    @Test func aCaseWithoutValuesIsAnObjectWithOnlyItsType() throws {
        #expect(try wire(CounterAction.increase) == #"{"type":"increase"}"#)
        #expect(try wire(TodoAction.clearCompleted) == #"{"type":"clearCompleted"}"#)
    }

    @Test func labeledValuesAreMembersInDeclarationOrderAfterType() throws {
        #expect(try wire(WeatherAction.searchCityWeather(city: "Seoul")) == #"{"type":"searchCityWeather","city":"Seoul"}"#)
        #expect(try wire(TodoAction.rename(id: "7", title: "t")) == #"{"type":"rename","id":"7","title":"t"}"#)
        #expect(try wire(TodoAction.move(from: 0, to: 2)) == #"{"type":"move","from":0,"to":2}"#)
    }

    @Test func oneUnlabeledValueIsCalledValueAndSeveralAreNumbered() throws {
        #expect(try wire(MixedAction.note("Buy milk")) == #"{"type":"note","value":"Buy milk"}"#)
        #expect(try wire(MixedAction.pair(1, "b")) == #"{"type":"pair","_0":1,"_1":"b"}"#)
        #expect(try wire(OptionalPair.pair(1, nil)) == #"{"type":"pair","_0":1}"#)
        #expect(try wire(Mixed.tagged(3, label: "x")) == #"{"type":"tagged","value":3,"label":"x"}"#)
    }

    @Test func nilOptionalsAreLeftOutAndJSONValuesKeptAsTheyAre() throws {
        #expect(try wire(MixedAction.flag(on: true, label: nil, count: 3)) == #"{"type":"flag","on":true,"count":3}"#)
        #expect(try wire(DocAction.emit(name: "e", value: nil)) == #"{"type":"emit","name":"e"}"#)
        #expect(try wire(DocAction.set(path: "/a", value: .null)) == #"{"type":"set","path":"/a","value":null}"#)
        #expect(try wire(DocAction.set(path: "/a", value: ["k": [1, "x"]])) == #"{"type":"set","path":"/a","value":{"k":[1,"x"]}}"#)
    }

    @Test func structuredValuesEncodeThroughTheirOwnConformances() throws {
        #expect(try wire(MixedAction.place(at: Point(x: 1, y: 2), tags: ["a"])) == #"{"type":"place","at":{"x":1,"y":2},"tags":["a"]}"#)
        #expect(try wire(MixedAction.level(.low)) == #"{"type":"level","value":"low"}"#)
        #expect(try wire(MixedAction.mark(rank: .second)) == #"{"type":"mark","rank":2}"#)
    }

    @Test func aRawValueEnumIsItsBareName() throws {
        #expect(try wire(RawAction.start) == #""start""#)
        #expect(try decoder.decode(RawAction.self, from: encoder.encode(RawAction.stop)) == .stop)
    }

    @Test func aJSONValueIsAlreadyInWireForm() throws {
        let payload: JSONValue = ["type": "add", "title": "x"]
        #expect(try encoder.encode(payload) == payload)
        #expect(try encoder.encode(JSONValue.string("increase")) == "increase")
    }

    @Test func everyFixtureCaseRoundTrips() throws {
        for action in [CounterAction.increase, .decrease] { try roundTrip(action) }
        try roundTrip(WeatherAction.searchCityWeather(city: "São Paulo \"quoted\""))
        let todos: [TodoAction] = [
            .add(title: "Buy milk"), .toggle(id: "a1"), .rename(id: "a1", title: ""), .remove(id: "z"),
            .move(from: 3, to: -1), .clearCompleted,
        ]
        for action in todos { try roundTrip(action) }
        let docs: [DocAction] = [
            .set(path: "/a/b", value: ["x": 1.5, "y": [true, .null]]), .set(path: "", value: .null),
            .remove(path: "/a"), .patch(ops: [["op": "add", "path": "/x", "value": 1]]), .patch(ops: []),
            .emit(name: "n", value: nil), .emit(name: "n", value: .null), .emit(name: "n", value: "v"),
        ]
        for action in docs {
            // `emit` with an explicit null decodes as nil: the wire cannot tell them apart.
            if action == .emit(name: "n", value: .null) {
                #expect(try decoder.decode(DocAction.self, from: encoder.encode(action)) == .emit(name: "n", value: nil))
                continue
            }
            try roundTrip(action)
        }
        let mixed: [MixedAction] = [
            .note(""), .pair(-1, "b"), .scale(factor: 0.25), .scale(factor: 2),
            .flag(on: false, label: nil, count: nil), .flag(on: true, label: "l", count: 0),
            .place(at: Point(x: 0, y: -9), tags: []), .level(.high), .mark(rank: nil), .mark(rank: .first),
        ]
        for action in mixed { try roundTrip(action) }
        try roundTrip(RefreshAction.refresh)
        try roundTrip(OptionalPair.pair(1, nil))
        try roundTrip(OptionalPair.pair(1, "two"))
        try roundTrip(Mixed.tagged(0, label: "l"))
    }

    @Test func randomActionsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let word = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in "aé\"\\/xyz🙂\n".randomElement(using: &generator)! })
            let number = Int.random(in: -1_000_000...1_000_000, using: &generator)
            let actions: [MixedAction] = [
                .note(word), .pair(number, word), .scale(factor: Double(number) / 7),
                .flag(on: number.isMultiple(of: 2), label: number > 0 ? word : nil, count: number < 0 ? number : nil),
                .place(at: Point(x: number, y: -number), tags: [word, word]),
            ]
            for action in actions { try roundTrip(action) }
        }
    }

    @Test func whatIsNotAnEnumCaseIsRefusedWithWhatItWrote() {
        #expect(refusal(NotAnAction())?.problem == .notAnAction(got: "an object that is not one enum case"))
        #expect(refusal([1, 2])?.problem == .notAnAction(got: "an array"))
        #expect(refusal(42)?.problem == .notAnAction(got: "a number"))
        #expect(refusal(Reserved.bad(type: "x"))?.problem == .reservedMember)
        let nan = refusal(Scaled.scale(factor: .nan))
        #expect(nan?.action == "scale")
        #expect(nan?.message.hasPrefix("member 'factor' of action 'scale' cannot be encoded") == true)
    }
}
