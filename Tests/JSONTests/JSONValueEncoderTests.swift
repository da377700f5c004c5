import Testing
import ReactorHubJSON

/// Stands in for the Reactor module's `@Pulse`: reports itself to a recorder found in
/// `userInfo` and encodes nothing, so it is left out of the encoded state.
@propertyWrapper
struct Reported<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value
    var updates = 0

    init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        guard let recorder = encoder.userInfo[ReportRecorder.key] as? ReportRecorder else { return }
        let name = encoder.codingPath.last?.stringValue ?? "?"
        recorder.record(name: name, updates: updates, value: try JSONValueEncoder().encode(wrappedValue))
    }
}

/// Collects what `Reported` properties report; only touched from one test at a time.
final class ReportRecorder: @unchecked Sendable {
    static let key = CodingUserInfoKey(rawValue: "test.reportRecorder")!
    private(set) var reports: [(name: String, updates: Int, value: JSONValue)] = []

    func record(name: String, updates: Int, value: JSONValue) {
        reports.append((name, updates, value))
    }
}

enum Priority: String, Codable, Sendable { case low, high }
enum Rank: Int, Codable, Sendable { case first = 1, second = 2 }

struct Item: Codable, Equatable, Sendable {
    var id: String
    var done: Bool
    var priority: Priority
    var rank: Rank
    var note: String?
}

struct Board: Encodable, Sendable {
    struct Meta: Encodable, Sendable {
        var owner: String
        var scores: [Double]
        var extra: JSONValue
    }

    var title: String
    var items: [Item]
    var meta: Meta
    var count: Int
    var ratio: Double
    var nothing: Int?
    @Reported var alert: String? = nil
    var tags: Set<String> = []
    var last: UInt8 = 7
}

struct ExplicitNull: Encodable {
    var value: Int?
    enum CodingKeys: String, CodingKey { case value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }
}

struct NestedContainers: Encodable {
    enum Keys: String, CodingKey { case first, list, second }
    enum Inner: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .first)
        var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .list)
        var list = container.nestedUnkeyedContainer(forKey: .second)
        try inner.encode("x", forKey: .a)
        try list.encode(true)
        var deeper = list.nestedContainer(keyedBy: Inner.self)
        try deeper.encode(2, forKey: .b)
        try inner.encode("y", forKey: .b)
    }
}

@Suite struct JSONValueEncoderTests {
    let board = Board(
        title: "Board",
        items: [Item(id: "a", done: false, priority: .high, rank: .first, note: nil), Item(id: "b", done: true, priority: .low, rank: .second, note: "n")],
        meta: .init(owner: "kim", scores: [1.5, 2], extra: ["any": [1, "two"]]),
        count: 2,
        ratio: 0.25,
        nothing: nil
    )

    @Test func encodesNestedStructsInDeclarationOrder() throws {
        let value = try JSONValueEncoder().encode(board)
        #expect(value.objectValue?.keys == ["title", "items", "meta", "count", "ratio", "tags", "last"])
        #expect(value.description == #"{"title":"Board","items":[{"id":"a","done":false,"priority":"high","rank":1},{"id":"b","done":true,"priority":"low","rank":2,"note":"n"}],"meta":{"owner":"kim","scores":[1.5,2.0],"extra":{"any":[1,"two"]}},"count":2,"ratio":0.25,"tags":[],"last":7}"#)
    }

    @Test func aMemberThatEncodesNothingIsOmittedAndReportsThroughUserInfo() throws {
        var board = board
        board.alert = "saved"
        let recorder = ReportRecorder()
        let value = try JSONValueEncoder(userInfo: [ReportRecorder.key: recorder]).encode(board)
        #expect(value["alert"] == nil)
        #expect(recorder.reports.count == 1)
        #expect(recorder.reports.first?.name == "alert")
        #expect(recorder.reports.first?.updates == 0)
        #expect(recorder.reports.first?.value == "saved")
        let withoutRecorder = try JSONValueEncoder().encode(board)
        #expect(withoutRecorder.objectValue?.count == 7)
    }

    @Test func nilOptionalsAreOmittedUnlessEncodedExplicitly() throws {
        #expect(try JSONValueEncoder().encode(board)["nothing"] == nil)
        #expect(try JSONValueEncoder().encode(ExplicitNull(value: nil)) == ["value": .null])
        #expect(try JSONValueEncoder().encode(ExplicitNull(value: 3)) == ["value": 3])
    }

    @Test func jsonValuesAreInsertedAsTheyAre() throws {
        let document: JSONValue = ["big": .array((0..<100).map { .int($0) })]
        let encoded = try JSONValueEncoder().encode(["doc": document])
        #expect(encoded["doc"]!.isIdentical(to: document))
        #expect(try JSONValueEncoder().encode(document).isIdentical(to: document))
    }

    @Test func integersAndDoublesStayApart() throws {
        let value = try JSONValueEncoder().encode(["i": 1.0, "j": 2] as [String: Double])
        #expect(value["i"].map { if case .double(1.0) = $0 { true } else { false } } == true)
        let ints = try JSONValueEncoder().encode([Int64.max, 3] as [Int64])
        #expect(ints == [.int(Int.max), .int(3)])
        let huge = try JSONValueEncoder().encode(UInt64.max)
        #expect(huge == .double(18_446_744_073_709_551_616))
    }

    @Test func nonFiniteDoublesAreRefusedWithTheirCodingPath() throws {
        struct Reading: Encodable { var values: [Double] }
        do {
            _ = try JSONValueEncoder().encode(Reading(values: [1, .nan]))
            Issue.record("NaN was encoded")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["values", "1"])
        }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Double.infinity]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Float.nan) }
    }

    @Test func nestedContainersLandAtTheirKeysInOrder() throws {
        let value = try JSONValueEncoder().encode(NestedContainers())
        #expect(value.description == #"{"first":1,"list":{"a":"x","b":"y"},"second":[true,{"b":2}]}"#)
    }

    @Test func aTopLevelValueThatEncodesNothingIsAnError() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Reported(wrappedValue: 1)) }
    }

    @Test func anArrayElementThatEncodesNothingKeepsItsPlaceAsAnEmptyObject() throws {
        let value = try JSONValueEncoder().encode([Reported(wrappedValue: 1), Reported(wrappedValue: 2)])
        #expect(value == [[:], [:]])
    }
}
