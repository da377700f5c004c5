import ReactorHubProtocol
import ReactorHubJSON
import Testing

@Suite("Client message parsing")
struct ClientMessageParserTests {
    func parse(_ text: String) -> Result<ClientRequest, ClientMessageParser.Failure> {
        ClientMessageParser.parse(Array(text.utf8))
    }

    @Test func everyMessageTypeParses() throws {
        let lobby = try #require(ReactorAddress("counter/lobby"))
        #expect(try parse(#"{"type":"ping","ref":4}"#).get() == ClientRequest(message: .ping, ref: 4))
        #expect(try parse(#"{"type":"join","reactor":"counter/lobby","ref":1}"#).get()
            == ClientRequest(message: .join(lobby, since: nil), ref: 1))
        #expect(try parse(#"{"type":"join","reactor":"counter/lobby","since":{"epoch":"e3f1","version":41}}"#).get()
            == ClientRequest(message: .join(lobby, since: .init(epoch: "e3f1", version: 41)), ref: nil))
        #expect(try parse(#"{"type":"leave","reactor":"counter/lobby","ref":"two"}"#).get()
            == ClientRequest(message: .leave(lobby), ref: "two"))
        #expect(try parse(#"{"type":"action","reactor":"counter/lobby","action":{"type":"increase"},"ref":3}"#).get()
            == ClientRequest(message: .action(lobby, ActionPayload(.object(["type": "increase"])), id: nil), ref: 3))
    }

    @Test func refsAreCarriedOnRefusals() {
        guard case .failure(let failure) = parse(#"{"type":"jump","ref":"keep"}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.error.code == .badRequest)
        #expect(failure.ref == "keep")
    }

    @Test(arguments: [
        (#"{"type":"ping","ref":true}"#, "bad_request"),
        (#"{"type":"ping","ref":null}"#, "bad_request"),
        (#"{"type":"ping","ref":["a"]}"#, "bad_request"),
        (#"not json"#, "bad_json"),
        (#"{"type":"action","reactor":"counter/x"}"#, "bad_request"),
        (#"{"type":"join","reactor":7}"#, "bad_request"),
        (#"{"type":"join","reactor":"counter"}"#, "invalid_reactor"),
        (#"{"type":"join","reactor":"counter/"}"#, "invalid_reactor"),
        (#"{"type":"join","reactor":"counter/a","since":{"epoch":"e","version":-1}}"#, "bad_request"),
    ])
    func malformedMessagesAreRefusedWithTheRightCode(text: String, code: String) {
        guard case .failure(let failure) = parse(text) else {
            Issue.record("\(text) accepted")
            return
        }
        #expect(failure.error.code.rawValue == code)
        #expect(!failure.error.message.isEmpty)
    }

    @Test func refOfExactly64CharactersIsAccepted() throws {
        let ref = String(repeating: "r", count: 64)
        #expect(try parse(#"{"type":"ping","ref":"\#(ref)"}"#).get().ref == Ref(stringLiteral: ref))
        let korean = String(repeating: "\u{AC00}", count: 64)  // 192 bytes, 64 characters
        #expect(try parse(#"{"type":"ping","ref":"\#(korean)"}"#).get().ref == Ref(stringLiteral: korean))
        let escapes = String(repeating: #"\u0001"#, count: 10) + "abcd"  // 10 × 6 and 4: 64 as written
        #expect(try parse(#"{"type":"ping","ref":"\#(escapes)"}"#).get().ref?.description == #""\#(escapes)""#)
    }

    /// Before, the ref was kept as a parsed value and written back re-encoded.
    @Test(arguments: ["1E2", "18446744073709551616", "-0", "1.50", "1e-7", #""\u0041""#, #""a\/b""#, #""é""#])
    func refIsKeptAsWritten(text: String) throws {
        let request = try parse(#"{"type":"ping","ref" : \#(text) }"#).get()
        #expect(request.ref?.json == Array(text.utf8))
    }

    @Test func aNumberRefOf65CharactersIsRefused() throws {
        let digits64 = String(repeating: "9", count: 64)
        #expect(try parse(#"{"type":"ping","ref":\#(digits64)}"#).get().ref?.description == digits64)
        guard case .failure(let failure) = parse(#"{"type":"ping","ref":\#(digits64)9}"#) else {
            Issue.record("a 65-digit ref was accepted")
            return
        }
        #expect(failure.error.code == .badRequest)
        #expect(failure.ref == nil)
    }

    /// Found by the client-message fuzz target, when the limit counted `Character`s of the
    /// parsed string: a ref of 64 characters could be written back far longer, on every
    /// reply. Counted as written, in scalars, each of these is over 64.
    @Test(arguments: [
        // The first finding: 60 characters with two NULs, written as 70.
        #"{"type":"pin1.5e300g","ref":"rrrrrrrr\u0000rrrrrrr\u0000rr rrrrrrrrrrrrrrrrrrrrrrrrrrrérrrrrrrrrrrr"}"#,
        // The second (Fuzz/regressions/client-message): quotes, backslashes, a CR; 65 written.
        #"{"type":"ping","ref":"rrrtrrrrrr\"rrrtrrrrrr\\rtrrrrrrSrrrrrrrrrr\rtrrrrrrSrrrrrrrrrrrr"}"#,
        // 33 CR LF pairs: 33 characters, 132 written.
        #"{"type":"ping","ref":""# + String(repeating: #"\r\n"#, count: 33) + #""}"#,
        // One character of 65 scalars: a letter and 64 combining marks.
        #"{"type":"ping","ref":"e"# + String(repeating: "\u{301}", count: 64) + #""}"#,
        // 11 escapes of 6: 66 written, 11 parsed.
        #"{"type":"ping","ref":""# + String(repeating: #"\u0041"#, count: 11) + #""}"#,
        // 65 characters of two bytes.
        #"{"type":"ping","ref":""# + String(repeating: "é", count: 65) + #""}"#,
    ])
    func refWrittenLongerThan64CharactersIsRefused(text: String) {
        guard case .failure(let failure) = parse(text) else {
            Issue.record("\(text) accepted")
            return
        }
        #expect(failure.error.code == .badRequest)
        #expect(failure.ref == nil)
    }

    @Test func scalarsAreCountedOnTheBytes() {
        #expect(Ref.scalarCount(Array("abc".utf8)[...]) == 3)
        #expect(Ref.scalarCount(Array("e\u{301}\u{AC00}".utf8)[...]) == 3)
        #expect(Ref.scalarCount(Array("\u{1F600}é".utf8)[...]) == 2)
    }

    @Test func aRepeatedRefKeepsTheLastAsWritten() throws {
        #expect(try parse(#"{"type":"ping","ref":1,"ref":2.50}"#).get().ref?.description == "2.50")
    }
}
