import ReactorHubJSON

enum CounterAction: Codable, Equatable { case increase, decrease }

enum WeatherAction: Codable, Equatable { case searchCityWeather(city: String) }

enum TodoAction: Codable, Equatable {
    case add(title: String)
    case toggle(id: String)
    case rename(id: String, title: String)
    case remove(id: String)
    case move(from: Int, to: Int)
    case clearCompleted
}

enum DocAction: Codable, Equatable {
    case set(path: String, value: JSONValue)
    case remove(path: String)
    case patch(ops: [JSONValue])
    case emit(name: String, value: JSONValue?)
}

struct Point: Codable, Equatable { var x: Int; var y: Int }

enum MixedAction: Codable, Equatable {
    case note(String)
    case pair(Int, String)
    case scale(factor: Double)
    case flag(on: Bool, label: String?, count: Int?)
    case place(at: Point, tags: [String])
    case level(Priority)
    case mark(rank: Rank?)
}

enum RefreshAction: Codable, Equatable { case refresh }

enum RawAction: String, Codable, CaseIterable { case start, stop }

/// A hand-written conformance: the schema cannot describe it, and must not crash.
enum HandWritten: Decodable, Equatable {
    case ping
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard try container.decode(String.self) == "ping" else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not ping")
        }
        self = .ping
    }
}
