import Foundation
import ReactorHubJSON
import Testing

@Suite struct FoundationInteropTests {
    let value: JSONValue = ["a": [1, 2.5, "x", true, .null], "b": ["c": "ü 🎉"]]

    @Test func jsonValueEncodesThroughFoundationsEncoder() throws {
        let data = try JSONEncoder().encode(value)
        #expect(try JSONValue(parsing: Array(data)) == value)
    }

    @Test func jsonValueDecodesThroughFoundationsDecoder() throws {
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(value.serialized()))
        #expect(decoded == value)
        #expect(decoded["a"]?[0].map { if case .int(1) = $0 { true } else { false } } == true)
    }

    @Test func decoderUserInfoReachesNestedValues() throws {
        struct Probe: Decodable {
            let seen: String
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "tag")!] as? String ?? "nothing"
            }
        }
        struct Outer: Decodable { let inner: [Probe] }
        let decoder = JSONValueDecoder(userInfo: [CodingUserInfoKey(rawValue: "tag")!: "here"])
        let outer = try decoder.decode(Outer.self, from: ["inner": [[:], [:]]])
        #expect(outer.inner.map(\.seen) == ["here", "here"])
    }

    @Test func superEncodersLandAtTheirKeys() throws {
        class Base: Encodable {
            var id = 1
        }
        final class Derived: Base {
            var extra = "e"
            enum Keys: String, CodingKey { case extra }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(extra, forKey: .extra)
                try super.encode(to: container.superEncoder())
            }
        }
        #expect(try JSONValueEncoder().encode(Derived()) == ["extra": "e", "super": ["id": 1]])
    }
}
