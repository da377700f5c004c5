import ReactorHubJSON

/// The counter seed's state.
struct CounterState: Encodable {
    var value: Int
    var isLoading: Bool
}

/// The todo kind's state.
struct TodoState: Encodable {
    struct Todo: Encodable {
        var id: String
        var title: String
        var done: Bool
    }

    var items: [Todo]

    static func make(count: Int) -> TodoState {
        TodoState(items: (0..<count).map { Todo(id: "t\($0)", title: "Task number \($0) to do", done: $0 % 3 == 0) })
    }
}

enum Fixtures {
    /// A document of about `targetBytes` bytes shaped like a collaborative doc: sections of
    /// records with strings, numbers, flags, nested arrays and a little Unicode.
    static func document(targetBytes: Int) -> JSONValue {
        var root = JSONObject()
        var section = 0
        var size = 0
        while size < targetBytes {
            var records: [JSONValue] = []
            for record in 0..<40 {
                records.append([
                    "id": .string("s\(section)-r\(record)"),
                    "title": .string("Record \(record) of section \(section) — 메모 ✓"),
                    "score": .double(Double(record) * 1.25 + Double(section) / 8),
                    "count": .int(record * 37 + section),
                    "done": .bool(record % 2 == 0),
                    "tags": ["alpha", "beta", .string("t\(record % 7)")],
                    "body": .string("Line one of the note.\nLine two with a \"quote\" and a tab\there."),
                ])
            }
            let value: JSONValue = ["name": .string("Section \(section)"), "records": .array(records)]
            size += value.serialized().count
            root["section\(section)"] = value
            section += 1
        }
        return .object(root)
    }

    static let actionMessage = #"{"type":"action","reactor":"weather/seoul","action":{"type":"searchCityWeather","city":"Seoul"},"ref":17}"#
}

enum WeatherAction: Decodable {
    case searchCityWeather(city: String)
    case refresh
}
