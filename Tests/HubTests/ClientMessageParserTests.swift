import JSON
import Testing
@testable import Hub

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
            == ClientRequest(message: .action(lobby, .object(["type": "increase"])), ref: 3))
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
        #expect(try parse(#"{"type":"ping","ref":"\#(ref)"}"#).get().ref == .string(ref))
    }
}

@Suite("Names, history, rate")
struct HubValueTests {
    @Test func addressesFollowTheNamingRules() {
        #expect(ReactorAddress("counter/lobby")?.kind == "counter")
        #expect(ReactorAddress("my-kind9/A.b_c-1")?.id == "A.b_c-1")
        #expect(ReactorAddress("Counter/x") == nil)
        #expect(ReactorAddress("9kind/x") == nil)
        #expect(ReactorAddress("counter/a/b") == nil)
        #expect(ReactorAddress("counter/" + String(repeating: "i", count: 64)) != nil)
        #expect(ReactorAddress("counter/" + String(repeating: "i", count: 65)) == nil)
        #expect(ReactorAddress(String(repeating: "k", count: 33) + "/x") == nil)
    }

    @Test func historyServesConsecutiveFramesOrNil() {
        var history = PatchHistory(capacity: 3)
        for version in 1...5 {
            history.append(PatchFrameFactory.make(version))
        }
        #expect(history.frames(after: 5, current: 5)?.count == 0)
        #expect(history.frames(after: 2, current: 5)?.map(\.version) == [3, 4, 5])
        #expect(history.frames(after: 3, current: 5)?.map(\.version) == [4, 5])
        #expect(history.frames(after: 1, current: 5) == nil)
    }

    /// Frames dropped for the byte bound do not stay in memory: at most as many as those
    /// held (a 60 KB value replaced 256 times kept every frame before).
    @Test func historyStoresWithinTwiceItsBounds() {
        // the size of the last ten frames (versions 291...300: as many digits each)
        let size = PatchFrameFactory.make(300, "[\"\(String(repeating: "x", count: 1000))\"]").message.count
        var history = PatchHistory(capacity: 256, maxBytes: 10 * size)
        for version in 1...300 {
            history.append(PatchFrameFactory.make(version, "[\"\(String(repeating: "x", count: 1000))\"]"))
            #expect(history.storedCount <= 2 * history.count + 1)
        }
        #expect(history.count == 10)
        #expect(history.frames(after: 290, current: 300)?.map(\.version) == Array(291...300))
        #expect(history.frames(after: 289, current: 300) == nil)
    }

    @Test func tokenBucketAllowsBurstThenRate() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(ratePerSecond: 10, burst: 2, now: start)
        let offsets: [Duration] = [.zero, .zero, .zero, .milliseconds(50), .milliseconds(110), .milliseconds(120)]
        let taken = offsets.map { bucket.take(now: start + $0) }
        #expect(taken == [true, true, false, false, true, false])
    }
}
