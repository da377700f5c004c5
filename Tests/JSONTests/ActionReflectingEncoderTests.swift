import ReactorHubJSON
import Testing

/// `MixedAction`'s cases on an enum that is only `Decodable`, as reactors declare actions.
private enum DecodableMixed: Decodable, Equatable {
    case note(String)
    case pair(Int, String)
    case scale(factor: Double)
    case flag(on: Bool, label: String?, count: Int?)
    case place(at: Point, tags: [String])
    case level(Priority)
    case mark(rank: Rank?)
}

/// `TodoAction`'s and `DocAction`'s cases, `Decodable` only.
private enum DecodableTodo: Decodable, Equatable {
    case add(title: String)
    case toggle(id: String)
    case rename(id: String, title: String)
    case remove(id: String)
    case move(from: Int, to: Int)
    case clearCompleted
}

private enum DecodableDoc: Decodable, Equatable {
    case set(path: String, value: JSONValue)
    case emit(name: String, value: JSONValue?)
}

/// A raw-value enum that is only `Decodable`: its wire form is the bare raw value.
private enum DecodableRaw: String, Decodable { case start, stop }

/// A case without values hidden by a description: reflection cannot name it.
private enum Described: Decodable, CustomStringConvertible {
    case go
    var description: String { "Go!" }
}

/// A value that is not `Encodable`.
private struct Opaque: Decodable { var x = 1 }
private enum CarriesOpaque: Decodable { case carry(thing: Opaque) }

@Suite struct ActionReflectingEncoderTests {
    let encoder = ActionEncoder()

    /// The Decodable-only action encodes exactly as its Codable twin, and decodes back.
    private func same<Reflected: Decodable & Equatable>(
        _ action: Reflected,
        as twin: some Encodable,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let reflected = try encoder.encode(reflecting: action)
        #expect(reflected == (try encoder.encode(twin)), sourceLocation: sourceLocation)
        #expect(try ActionDecoder().decode(Reflected.self, from: reflected) == action, sourceLocation: sourceLocation)
    }

    @Test func everyShapeEncodesAsTheCodableTwinDoes() throws {
        try same(DecodableMixed.note("Buy milk"), as: MixedAction.note("Buy milk"))
        try same(DecodableMixed.pair(1, "b"), as: MixedAction.pair(1, "b"))
        try same(DecodableMixed.scale(factor: 1.5), as: MixedAction.scale(factor: 1.5))
        try same(DecodableMixed.flag(on: true, label: "x", count: 3), as: MixedAction.flag(on: true, label: "x", count: 3))
        try same(DecodableMixed.flag(on: false, label: nil, count: nil), as: MixedAction.flag(on: false, label: nil, count: nil))
        try same(DecodableMixed.place(at: Point(x: 1, y: 2), tags: ["a", "b"]), as: MixedAction.place(at: Point(x: 1, y: 2), tags: ["a", "b"]))
        try same(DecodableMixed.level(.high), as: MixedAction.level(.high))
        try same(DecodableMixed.mark(rank: .second), as: MixedAction.mark(rank: .second))
        try same(DecodableMixed.mark(rank: nil), as: MixedAction.mark(rank: nil))
        try same(DecodableTodo.add(title: "x"), as: TodoAction.add(title: "x"))
        try same(DecodableTodo.rename(id: "i1", title: "y"), as: TodoAction.rename(id: "i1", title: "y"))
        try same(DecodableTodo.move(from: 2, to: 0), as: TodoAction.move(from: 2, to: 0))
        try same(DecodableTodo.clearCompleted, as: TodoAction.clearCompleted)
        try same(DecodableDoc.set(path: "/a", value: ["b": [1, true]]), as: DocAction.set(path: "/a", value: ["b": [1, true]]))
        try same(DecodableDoc.emit(name: "e", value: nil), as: DocAction.emit(name: "e", value: nil))
    }

    @Test func membersAreNamedAndOrderedAsTheSchemaListsThem() throws {
        let encoded = try encoder.encode(reflecting: DecodableTodo.rename(id: "i1", title: "y"))
        #expect(encoded.objectValue.map { Array($0.keys) } == ["type", "id", "title"])
        #expect(ActionSchema(describing: DecodableTodo.self).case(named: "rename")?.members.map(\.name) == ["id", "title"])
    }

    @Test func aRawValueEnumIsItsBareRawValue() throws {
        #expect(try encoder.encode(reflecting: DecodableRaw.stop) == "stop")
    }

    @Test func anEncodableActionGoesThroughItsConformance() throws {
        #expect(try encoder.encode(reflecting: TodoAction.toggle(id: "z")) == ["type": "toggle", "id": "z"])
    }

    @Test func whatReflectionCannotNameOrEncodeIsRefusedWithTheReason() {
        #expect(throws: ActionEncodingError(action: nil, problem: .notAnAction(got: "a case whose name Described's description hides"))) {
            try encoder.encode(reflecting: Described.go)
        }
        #expect(throws: ActionEncodingError(action: "carry", problem: .invalidMember(member: "thing", reason: "Opaque is not Encodable"))) {
            try encoder.encode(reflecting: CarriesOpaque.carry(thing: Opaque()))
        }
        #expect(throws: ActionEncodingError(action: nil, problem: .notAnAction(got: "a struct"))) {
            try encoder.encode(reflecting: Opaque())
        }
    }
}
