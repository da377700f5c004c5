import Testing
import ReactorHubJSON

struct Restored: Codable, Equatable {
    struct Inner: Codable, Equatable { var flag: Bool; var small: UInt8 }
    var name: String
    var count: Int
    var ratio: Double
    var level: Float
    var inner: Inner
    var list: [Int]
    var optional: String?
    var raw: JSONValue
    var priority: Priority
}

@Suite struct JSONValueDecoderTests {
    let json: JSONValue = [
        "name": "n", "count": 3, "ratio": 2, "level": 0.5, "inner": ["flag": true, "small": 255.0],
        "list": [1, 2, 3], "raw": ["free": [.null]], "priority": "high",
    ]

    @Test func decodesNestedValuesWithIntegersForDoublesAndIntegralDoublesForIntegers() throws {
        let value = try JSONValueDecoder().decode(Restored.self, from: json)
        #expect(value == Restored(
            name: "n", count: 3, ratio: 2, level: 0.5, inner: .init(flag: true, small: 255), list: [1, 2, 3],
            optional: nil, raw: ["free": [.null]], priority: .high
        ))
    }

    @Test func encodingThenDecodingRestoresTheValue() throws {
        let original = try JSONValueDecoder().decode(Restored.self, from: json)
        let encoded = try JSONValueEncoder().encode(original)
        #expect(try JSONValueDecoder().decode(Restored.self, from: encoded) == original)
    }

    @Test func errorsCarryTheCodingPath() {
        var broken = json
        if case .object(var object) = broken {
            object["inner"] = ["flag": "yes", "small": 1]
            broken = .object(object)
        }
        do {
            _ = try JSONValueDecoder().decode(Restored.self, from: broken)
            Issue.record("decoded a string as a Bool")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["inner", "flag"])
            #expect(context.debugDescription == "Expected a boolean but found a string instead.")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func missingKeysAndOutOfRangeNumbersAreReported() {
        do {
            _ = try JSONValueDecoder().decode(Restored.Inner.self, from: ["flag": true])
            Issue.record("decoded without 'small'")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "small")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(UInt8.self, from: 256) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: 1.5) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode([Int].self, from: [1, "2"]) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Float.self, from: 1e300) }
    }

    @Test func jsonValueDecodesFromItselfUnchanged() throws {
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: json) == json)
        #expect(try JSONValueDecoder().decode(JSONObject.self, from: json) == json.objectValue)
        #expect(try JSONValueDecoder().decode(JSONValue?.self, from: .null) == nil)
    }
}
