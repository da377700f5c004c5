import ReactorHubJSON
import ReactorHubProtocol
import Testing

/// `ClientMessageParser.parse` reads the usual action message without a JSON tree
/// (`plainAction`); everything else goes to `parseInFull`. These hold the shortcut to the
/// full parse's answers, member for member, and to the messages it is meant to take.
@Suite("Client message parsing: the plain action shortcut")
struct PlainActionShortcutTests {
    /// The same answer from `parse` and `parseInFull`, down to where the action and the ref
    /// were written; returns whether the shortcut read it.
    @discardableResult
    func expectSameAnswer(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expectSameAnswer(Array(text.utf8), sourceLocation: sourceLocation)
    }

    @discardableResult
    func expectSameAnswer(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        let full = ClientMessageParser.parseInFull(bytes)
        let answer = ClientMessageParser.parse(bytes)
        let shortcut = ClientMessageParser.plainAction(bytes)
        switch (answer, full) {
        case (.success(let request), .success(let expected)):
            #expect(request == expected, "\(text)", sourceLocation: sourceLocation)
            #expect(request.ref?.json == expected.ref?.json, "\(text)", sourceLocation: sourceLocation)
            if case .action(let address, let payload, let id) = request.message,
               case .action(let expectedAddress, let expectedPayload, let expectedID) = expected.message {
                #expect(address.kind == expectedAddress.kind && address.id == expectedAddress.id, sourceLocation: sourceLocation)
                #expect(payload.writtenRange == expectedPayload.writtenRange, "\(text)", sourceLocation: sourceLocation)
                #expect(id == expectedID, sourceLocation: sourceLocation)
                expectSameDecoding(payload, expectedPayload, text, sourceLocation: sourceLocation)
            }
        case (.failure(let failure), .failure(let expected)):
            #expect(failure == expected, "\(text)", sourceLocation: sourceLocation)
            #expect(shortcut == nil, "the shortcut accepted \(text), which the full parse refuses", sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): \(answer) against the full parse's \(full)", sourceLocation: sourceLocation)
        }
        if let shortcut, case .success(let expected) = full {
            #expect(shortcut == expected, sourceLocation: sourceLocation)
        }
        return shortcut != nil
    }

    /// An action of the tests' own, to decode the payloads with.
    enum Move: Codable, Equatable {
        case set(path: String, value: JSONValue)
        case add(text: String)
        case a
        case increase
    }

    /// The payload the shortcut made (with the members its check noted, for an object)
    /// decodes as the full parse's does (which the decoder scans for its members).
    func expectSameDecoding(_ payload: ActionPayload, _ expected: ActionPayload, _ text: String, sourceLocation: SourceLocation) {
        #expect(expected.notedMembers == nil, sourceLocation: sourceLocation)
        func decoded(_ payload: ActionPayload) -> String {
            do throws(ActionDecodingError) {
                return "\(try ActionDecoder().decode(Move.self, from: payload))"
            } catch {
                return "refused: \(error)"
            }
        }
        #expect(decoded(payload) == decoded(expected), "\(text)", sourceLocation: sourceLocation)
        // Keys as the parsed object has them (which keeps one of a repeated key).
        if let noted = payload.notedMembers, Set(noted.map(\.key)).count == noted.count {
            let parsed = (try? JSONValue(parsing: text))?["action"]?.objectValue
            #expect(noted.map(\.key) == parsed?.map(\.key), "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func theActionsMembersAreNotedOnTheWay() throws {
        let text = #"{"type":"action","reactor":"doc/b1","action":{"type":"set", "path":"/s0","value":{"t":1,"seq":2}},"ref":7}"#
        let request = try ClientMessageParser.parse(Array(text.utf8)).get()
        guard case .action(_, let payload, _) = request.message else {
            Issue.record("not an action")
            return
        }
        let noted = try #require(payload.notedMembers)
        #expect(noted.map(\.key) == ["type", "path", "value"])
        #expect(noted.map { String(decoding: Array(text.utf8)[$0.range], as: UTF8.self) } == [#""set""#, #""/s0""#, #"{"t":1,"seq":2}"#])
        #expect(try ActionDecoder().decode(Move.self, from: payload) == .set(path: "/s0", value: ["t": 1, "seq": 2]))
    }

    @Test(arguments: [
        #"{"type":"action","reactor":"doc/b1","action":{"type":"set","path":"/s0","value":{"t":1,"seq":2}},"ref":7}"#,
        #"{"type":"action","reactor":"counter/lobby","action":"increase"}"#,
        #"{"ref":"r-1","action":{"type":"add","text":"caf\u00e9 \"q\""},"id":"5f0c6e1a","reactor":"todo/home","type":"action"}"#,
        " \n{ \"type\" : \"action\" ,\t\"reactor\":\"chat/r.o_o-m\", \"action\" : [ ] , \"ref\" : -12 } \r\n",
        #"{"type":"action","reactor":"doc/x","action":{"type":"set","value":[1,2.5,true,null,{"a":[[]]}]},"ref":0}"#,
        #"{"type":"action","reactor":"doc/x","action":{},"ref":123456789012345678}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"id":"\#(String(repeating: "i", count: 64))"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":"\#(String(repeating: "r", count: 64))"}"#,
    ])
    func usualActionMessagesTakeTheShortcut(text: String) {
        #expect(expectSameAnswer(text))
    }

    @Test(arguments: [
        // other messages, and actions written in ways the shortcut leaves to the full parse
        #"{"type":"join","reactor":"doc/x","ref":1}"#,
        #"{"type":"ping"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":1.5}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":1e3}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":1234567890123456789}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":"\u0041"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":"é"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"id":null}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"id":"\u0041"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":1,"ref":2}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"action":"b"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"extra":true}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"extra":1}"#,
        #"{"\u0074ype":"action","reactor":"doc/x","action":{"type":"a"}}"#,
        #"{"type":"action","reactor":"doc/x","action":7}"#,
        #"{"type":"action","reactor":"doc/x","action":true}"#,
        // refusals: each answered by the full parse, with its code and ref
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"id":""}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"id":"\#(String(repeating: "i", count: 65))"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":"\#(String(repeating: "r", count: 65))"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":01}"#,
        #"{"type":"action","reactor":"doc","action":{"type":"a"},"ref":3}"#,
        #"{"type":"action","reactor":"Doc/x","action":{"type":"a"},"ref":3}"#,
        #"{"type":"action","reactor":"doc/x/y","action":{"type":"a"},"ref":3}"#,
        #"{"type":"action","reactor":"doc/x","ref":3}"#,
        #"{"type":"action","action":{"type":"a"},"ref":3}"#,
        #"{"type":"actions","reactor":"doc/x","action":{"type":"a"},"ref":3}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a",},"ref":3}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":3,}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":3}x"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"},"ref":3} {}"#,
        #"{"type":"action","reactor":"doc/x","action":{"type":"a"}"#,
        #"{"type":"action","reactor":"doc/x","action":{"v":[1,2]]}}"#,
        #"{"type":"action","reactor":"doc/x","action":{"v":"\x"}}"#,
        #"{"type":"action","reactor":"doc/x","action":{"v":01}}"#,
        #"{"type":"action","reactor":"doc/x""action":{"type":"a"}}"#,
        #"{}"#,
        #"[]"#,
        "",
    ])
    func otherMessagesAreLeftToTheFullParse(text: String) {
        #expect(!expectSameAnswer(text))
    }

    @Test func nestingDeeperThanTheLimitIsRefusedAsByTheFullParse() {
        let depth = JSONParser.defaultMaximumDepth
        func message(nesting levels: Int) -> String {
            // the envelope is one level: the action adds `levels` more
            #"{"type":"action","reactor":"doc/x","action":"# + String(repeating: "[", count: levels)
                + String(repeating: "]", count: levels) + "}"
        }
        #expect(expectSameAnswer(message(nesting: depth - 1)))
        #expect(!expectSameAnswer(message(nesting: depth)))
    }

    /// Every one-byte change of a usual message (each byte replaced by each of a set of
    /// JSON's delimiters and a few letters, or deleted): the same answer both ways.
    @Test func everyOneByteChangeOfAUsualMessageGetsTheSameAnswer() {
        let message = Array(#"{"type":"action","reactor":"doc/b1","action":{"type":"set","value":[1,"x"]},"ref":42,"id":"k"}"#.utf8)
        let replacements = Array(#"{}[]":, \-0.9aeE"#.utf8) + [0x5C, 0x01, 0xC3]
        var shortcuts = 0, changes = 0
        for index in message.indices {
            var deleted = message
            deleted.remove(at: index)
            var variants = [deleted]
            for byte in replacements where byte != message[index] {
                var changed = message
                changed[index] = byte
                variants.append(changed)
            }
            for variant in variants {
                changes += 1
                if expectSameAnswer(variant) { shortcuts += 1 }
            }
        }
        #expect(changes == message.count * (1 + replacements.count) - message.count(where: replacements.contains))
        // Some changes leave a usual message (a digit of the ref, a letter of the id).
        #expect(shortcuts > 0 && shortcuts < changes)
    }
}
