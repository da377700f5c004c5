import Testing
import ReactorHubJSON

@Suite struct JSONPointerTests {
    @Test func parsesTheRFC6901Examples() throws {
        let cases: [(String, [String])] = [
            ("", []), ("/foo", ["foo"]), ("/foo/0", ["foo", "0"]), ("/", [""]), ("/a~1b", ["a/b"]),
            ("/c%d", ["c%d"]), ("/e^f", ["e^f"]), ("/g|h", ["g|h"]), ("/i\\j", ["i\\j"]), ("/k\"l", ["k\"l"]),
            ("/ ", [" "]), ("/m~0n", ["m~n"]), ("/~01", ["~1"]), ("/a//b/", ["a", "", "b", ""]), ("/키/🎉", ["키", "🎉"]),
        ]
        for (text, tokens) in cases {
            let pointer = try JSONPointer(parsing: text)
            #expect(pointer.tokens == tokens, "\(text)")
            #expect(pointer.description == text, "\(text)")
        }
    }

    @Test func rejectsAMissingLeadingSlash() {
        #expect(throws: JSONPointerError(code: .missingLeadingSlash, pointer: "foo")) { try JSONPointer(parsing: "foo") }
    }

    @Test func rejectsTildesNotFollowedByZeroOrOne() {
        for text in ["/~", "/a~2", "/~a", "/x/~"] {
            #expect(throws: JSONPointerError(code: .invalidEscape, pointer: text)) { try JSONPointer(parsing: text) }
        }
        #expect(JSONPointerError(code: .invalidEscape, pointer: "/~").message == "JSON Pointer '/~' has a '~' not followed by '0' or '1'")
    }

    @Test func escapesTildeBeforeSlash() {
        #expect(JSONPointer.escape("~1") == "~01")
        #expect(JSONPointer.escape("a/b~c") == "a~1b~0c")
        #expect(JSONPointer(tokens: ["~1", "/"]).description == "/~01/~1")
    }

    @Test func readsArrayIndicesStrictly() {
        #expect(JSONPointer.arrayIndex("0") == .position(0))
        #expect(JSONPointer.arrayIndex("1234") == .position(1234))
        #expect(JSONPointer.arrayIndex("-") == .end)
        for token in ["01", "00", "1e0", "-1", " 1", "1 ", "+1", "", "a", "99999999999999999999999"] {
            #expect(JSONPointer.arrayIndex(token) == nil, "\(token)")
        }
    }

    @Test func buildsRelatedPointers() {
        let pointer: JSONPointer = "/items/3"
        #expect(pointer.appending("done") == "/items/3/done")
        #expect(pointer.appending(index: 0).description == "/items/3/0")
        #expect(pointer.parent == "/items")
        #expect(JSONPointer.root.parent == nil)
        #expect(JSONPointer("/items").isProperPrefix(of: pointer))
        #expect(!pointer.isProperPrefix(of: pointer))
        #expect(!JSONPointer("/item").isProperPrefix(of: pointer))
    }
}
