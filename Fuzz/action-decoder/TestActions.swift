import ReactorHubJSON

// The shapes of Tests/JSONTests/ActionFixtures.swift, which the fuzz target cannot import.

struct Point: Decodable, Equatable { var x: Int; var y: Int }
enum Priority: String, Decodable { case low, high }
enum Rank: Int, Decodable { case first = 1, second = 2 }

enum MixedAction: Decodable, Equatable {
    case note(String)
    case pair(Int, String)
    case scale(factor: Double)
    case flag(on: Bool, label: String?, count: Int?)
    case place(at: Point, tags: [String])
    case level(Priority)
    case mark(rank: Rank?)
    case blob(JSONValue, JSONObject?)
    case numbers(small: Int8, unsigned: UInt32, ratio: Float, nested: [[Int]])
}

enum RawAction: String, Decodable, CaseIterable { case start, stop }

/// A hand-written conformance: read as a single string.
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
