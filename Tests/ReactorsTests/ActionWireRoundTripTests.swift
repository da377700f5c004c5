import ReactorHubJSON
import ReactorHubKinds
import Testing

/// Every shipped kind's actions survive the wire: what a client encodes is what the hub
/// decodes (`ActionDecoder.decode(ActionEncoder.encode(a)) == a`).
@Suite struct ActionWireRoundTripTests {
    let encoder = ActionEncoder()
    let decoder = ActionDecoder()

    private func roundTrip<Action: Codable & Equatable>(_ actions: [Action], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for action in actions {
            let wire = try encoder.encode(action)
            #expect(try decoder.decode(Action.self, from: wire) == action, "\(wire)", sourceLocation: sourceLocation)
        }
    }

    @Test func counterActions() throws {
        try roundTrip([CounterReactor.Action.increase, .decrease])
        #expect(try encoder.encode(CounterReactor.Action.increase) == ["type": "increase"])
    }

    @Test func weatherActions() throws {
        try roundTrip([WeatherReactor.Action.searchCityWeather(city: "Seoul"), .searchCityWeather(city: "")])
        #expect(try encoder.encode(WeatherReactor.Action.searchCityWeather(city: "Seoul")) == ["type": "searchCityWeather", "city": "Seoul"])
    }

    @Test func todoActions() throws {
        try roundTrip([
            TodoReactor.Action.add(title: "Buy milk"), .toggle(id: "0a1b2c3d"), .rename(id: "x", title: "y"),
            .remove(id: "x"), .move(from: 0, to: 4), .clearCompleted,
        ])
        #expect(try encoder.encode(TodoReactor.Action.move(from: 1, to: 0)) == ["type": "move", "from": 1, "to": 0])
    }

    @Test func docActions() throws {
        try roundTrip([
            DocReactor.Action.set(path: "/members/0", value: ["name": "a", "tags": [1, 2.5, true, .null]]),
            .set(path: "", value: [:]), .remove(path: "/x"),
            .patch(ops: [["op": "replace", "path": "/a", "value": 1], ["op": "remove", "path": "/b"]]),
            .emit(name: "cursor", value: ["line": 3]), .emit(name: "ping", value: nil),
        ])
    }

    @Test func theEncodedFormMatchesTheSchemaTheHubAdvertises() throws {
        // Every member the encoder writes is one the hub lists for that action in `hello`.
        let schema = ActionSchema(describing: TodoReactor.Action.self)
        let wire = try encoder.encode(TodoReactor.Action.rename(id: "x", title: "y"))
        let members = Set(wire.objectValue?.keys.filter { $0 != "type" } ?? [])
        #expect(members == Set(schema.case(named: "rename")?.members.map(\.name) ?? []))
    }
}
