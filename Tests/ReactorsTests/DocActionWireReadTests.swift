@testable import ReactorHubJSON
import ReactorHubKinds
import Testing

/// The `doc` kind's actions are read from their members (`WireReadableAction`) where the
/// synthesized `init(from:)` would go through its containers: every input must decode to
/// the same action, or fail with the same error, as through `Decodable` alone, from the
/// bytes of a message and from a parsed value.
@Suite struct DocActionWireReadTests {
    let decoder = ActionDecoder()

    /// `DocReactor.Action` through `Decodable` only (it is not `WireReadableAction`).
    struct ThroughDecodable: Decodable {
        let action: DocReactor.Action
        init(from decoder: any Decoder) throws {
            action = try DocReactor.Action(from: decoder)
        }
    }

    /// Every way the instance may decode `text`: (from bytes, from a value) × (read, through `Decodable`).
    private func outcomes(_ text: String) throws -> [String] {
        let frame = Array(#"{"type":"action","reactor":"doc/1","action": \#(text) ,"ref":1}"#.utf8)
        let range = try #require(try JSONParser().parse(frame, rangesOf: ["action"], unparsed: "action").ranges[0])
        let payloads = [ActionPayload(checkedJSON: frame, range: range), ActionPayload(try JSONValue(parsing: text))]
        var outcomes: [String] = []
        for payload in payloads {
            for readFirst in [true, false] {
                var name = ""
                do throws(ActionDecodingError) {
                    let action = readFirst
                        ? try decoder.decode(DocReactor.Action.self, from: payload, name: &name)
                        : try decoder.decode(ThroughDecodable.self, from: payload, name: &name).action
                    outcomes.append("\(name): \(action)")
                } catch {
                    outcomes.append("error: \(error)")
                }
            }
        }
        return outcomes
    }

    /// Whether `init(wire:)` takes `text` itself (true) or leaves it to `Decodable` (false).
    private func readsItself(_ text: String) throws -> Bool {
        let value = try JSONValue(parsing: text)
        guard case .object(let object) = value, case .string(let name)? = object["type"] else { return false }
        return DocReactor.Action(wire: ActionWireMembers(name: name, members: .object(object))) != nil
    }

    static let taken = [
        #"{"type":"set","path":"/a","value":1}"#,
        #"{"value":{"t":1,"seq":2,"pad":"x"},"path":"/s0","type":"set"}"#,
        #"{"type":"set","path":"","value":{}}"#,
        #"{"type":"set","path":"/a","value":null}"#,
        #"{"type":"set","path":"/a\u00e9","value":[1,2.5,true,null,"\u0000"]}"#,
        #"{"type":"set","p\u0061th":"/a","value":-0.0}"#,
        #"{"type":"set","type":"set","path":"/a","value":1e3}"#,
        #"{"type":"remove","path":"/x"}"#,
        #"{"type":"patch","ops":[{"op":"remove","path":"/b"},{"op":"add","path":"/c","value":2}]}"#,
        #"{"type":"patch","ops":[]}"#,
    ]

    static let leftToDecodable = [
        #""set""#,
        #"{"type":"set","path":"/a"}"#,
        #"{"type":"set","value":1}"#,
        #"{"type":"set","path":1,"value":1}"#,
        #"{"type":"set","path":"/a","value":1,"extra":true}"#,
        #"{"type":"set","path":"/a","valu":1}"#,
        #"{"type":"remove","path":null}"#,
        #"{"type":"remove"}"#,
        #"{"type":"patch","ops":{}}"#,
        #"{"type":"patch","ops":[],"path":"/a"}"#,
        #"{"type":"emit","name":"e"}"#,
        #"{"type":"emit","name":"e","value":{"k":[1]}}"#,
        #"{"type":"unknown"}"#,
        #"{"type":"Set","path":"/a","value":1}"#,
        #"{"type":7}"#,
        #"{"path":"/a","value":1}"#,
    ]

    /// Left to `Decodable` from bytes (each time a member was written counts) and read from
    /// a parsed object (which keeps the last): the same action either way.
    static let repeated = [
        #"{"type":"set","path":"/a","path":"/b","value":1}"#,
        #"{"type":"remove","path":"/a","path":"/b"}"#,
    ]

    @Test(arguments: taken + leftToDecodable + repeated)
    func readingAgreesWithDecodable(_ text: String) throws {
        let outcomes = try outcomes(text)
        #expect(outcomes.count == 4)
        #expect(Set(outcomes).count == 1, "\(text): \(outcomes)")
    }

    @Test func theEditsAreReadAndTheRestLeftToDecodable() throws {
        for text in Self.taken {
            #expect(try readsItself(text), "\(text)")
        }
        for text in Self.leftToDecodable {
            #expect(try !readsItself(text), "\(text)")
        }
        #expect(try decoder.decode(DocReactor.Action.self, from: ActionPayload(JSONValue(parsing: Self.taken[1])))
            == .set(path: "/s0", value: ["t": 1, "seq": 2, "pad": "x"]))
    }
}
