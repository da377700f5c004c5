import ReactorHubAuth
import Testing

/// One pattern, one address, one subject, and whether it matches.
struct PatternCase: Sendable, CustomTestStringConvertible {
    let pattern: String
    let reactor: String
    let subject: String?
    let matches: Bool

    init(_ pattern: String, _ reactor: String, sub subject: String? = "alice", _ matches: Bool) {
        self.pattern = pattern
        self.reactor = reactor
        self.subject = subject
        self.matches = matches
    }

    var testDescription: String { "\(pattern) \(matches ? "matches" : "does not match") \(reactor) (sub \(subject ?? "none"))" }
}

@Suite struct RightsPatternTests {
    static let matching: [PatternCase] = [
        // `*`: every valid reactor, nothing invalid.
        PatternCase("*", "counter/lobby", true),
        PatternCase("*", "doc/A.b_c-9", true),
        PatternCase("*", "doc/", false),
        PatternCase("*", "Doc/x", false),
        PatternCase("*", "nokind", false),
        // KIND/*: every id of one kind.
        PatternCase("doc/*", "doc/anything", true),
        PatternCase("doc/*", "docs/anything", false),
        PatternCase("doc/*", "counter/anything", false),
        PatternCase("doc/*", "do/c", false),
        // KIND/ID: exactly one.
        PatternCase("counter/lobby", "counter/lobby", true),
        PatternCase("counter/lobby", "counter/lobby2", false),
        PatternCase("counter/lobby", "counter/Lobby", false),
        PatternCase("counter/lobby", "counter/lobb", false),
        // KIND/PREFIX*: ids that start with PREFIX, PREFIX itself included.
        PatternCase("doc/team-*", "doc/team-a", true),
        PatternCase("doc/team-*", "doc/team-", true),
        PatternCase("doc/team-*", "doc/team", false),
        PatternCase("doc/team-*", "doc/xteam-a", false),
        PatternCase("doc/team-*", "todo/team-a", false),
        // {sub} anywhere, as literal text.
        PatternCase("doc/notes-{sub}", "doc/notes-alice", true),
        PatternCase("doc/notes-{sub}", "doc/notes-bob", false),
        PatternCase("doc/notes-{sub}", "doc/notes-alice2", false),
        PatternCase("doc/{sub}-*", "doc/alice-1", true),
        PatternCase("doc/{sub}-*", "doc/bob-1", false),
        PatternCase("{sub}/*", "alice/x", true),
        PatternCase("{sub}-docs/{sub}", "alice-docs/alice", true),
        PatternCase("{sub}-docs/{sub}", "alice-docs/bob", false),
        PatternCase("doc/notes-{sub}", "doc/notes-*", sub: "*", false),
        PatternCase("doc/notes-{sub}", "doc/notes-x", sub: "*", false),
        PatternCase("doc/notes-{sub}", "doc/notes-", sub: "*", false),
        PatternCase("doc/notes-{sub}", "doc/notes-x", sub: "x*", false),
        PatternCase("doc/notes-{sub}", "doc/notes-xy", sub: "x*", false),
        PatternCase("doc/notes-{sub}", "doc/notes-a", sub: "a/b", false),
        PatternCase("doc/notes-{sub}", "doc/notes-a/b", sub: "a/b", false),
        PatternCase("{sub}/x", "doc/x", sub: "*", false),
        PatternCase("{sub}/x", "doc/x", sub: "doc/x", false),
        PatternCase("doc/{sub}", "doc/K", sub: "\u{212A}", false),
        PatternCase("doc/{sub}", "doc/alice", sub: nil, false),
        PatternCase("doc/*", "doc/alice", sub: nil, true),
    ]

    @Test(arguments: matching)
    func patternMatchesExactlyTheAddressesOfItsForm(_ example: PatternCase) throws {
        let pattern = try RightsPattern(example.pattern)
        let rights = Rights(read: [pattern], subject: example.subject)
        #expect(rights.allows(.read, reactor: example.reactor) == example.matches)
    }

    static let invalid: [(String, String)] = [
        ("", "expected '*', KIND/*, KIND/ID or KIND/PREFIX*, with exactly one '/'"),
        ("doc", "expected '*', KIND/*, KIND/ID or KIND/PREFIX*, with exactly one '/'"),
        ("doc/a/b", "expected '*', KIND/*, KIND/ID or KIND/PREFIX*, with exactly one '/'"),
        ("**", "expected '*', KIND/*, KIND/ID or KIND/PREFIX*, with exactly one '/'"),
        ("*/x", "a kind is spelled out ('*' alone stands for every reactor), e.g. doc/*"),
        ("d*/x", "a kind is spelled out ('*' alone stands for every reactor), e.g. doc/*"),
        ("doc/a*b", "'*' may only end the pattern, as in KIND/* or KIND/PREFIX*"),
        ("doc/**", "'*' may only end the pattern, as in KIND/* or KIND/PREFIX*"),
        ("doc/", "the id after '/' is empty; KIND/* allows every id of a kind"),
        ("/x", "the kind before '/' is empty"),
        ("Doc/x", "a kind starts with a letter a-z"),
        ("9doc/x", "a kind starts with a letter a-z"),
        ("do_c/x", "a kind holds only a-z, 0-9 and '-'"),
        ("doc/a b", "an id holds only A-Z, a-z, 0-9, '.', '_' and '-'"),
        ("doc/é", "an id holds only A-Z, a-z, 0-9, '.', '_' and '-'"),
        ("doc/{user}", "'{' and '}' appear only in the placeholder {sub}"),
        ("doc/{sub", "'{' and '}' appear only in the placeholder {sub}"),
        ("doc/" + String(repeating: "a", count: 65), "an id has at most 64 characters"),
        (String(repeating: "a", count: 33) + "/x", "a kind has at most 32 characters"),
        ("doc/" + String(repeating: "a", count: 300), "longer than 256 bytes"),
    ]

    @Test(arguments: invalid)
    func invalidPatternIsRefusedWithWhatIsAccepted(_ pattern: String, _ message: String) {
        do {
            _ = try RightsPattern(pattern)
            Issue.record("\(pattern) was accepted")
        } catch {
            #expect(error.pattern == pattern)
            #expect(error.message == message)
            #expect(error.description == "invalid rights pattern '\(pattern)': \(message)")
        }
    }

    @Test func patternsOfTheLongestNamesAreValid() throws {
        let kind = "a" + String(repeating: "b", count: 31)
        let id = String(repeating: "Z", count: 64)
        let pattern = try RightsPattern("\(kind)/\(id)")
        #expect(pattern.matches(kind: kind, id: id, subject: nil))
        #expect(try RightsPattern("doc/\(id)*").matches(kind: "doc", id: id, subject: nil))
    }

    @Test func usesSubjectSaysWhetherThePatternHoldsThePlaceholder() throws {
        #expect(try RightsPattern("doc/notes-{sub}").usesSubject)
        #expect(try RightsPattern("{sub}/*").usesSubject)
        #expect(try !RightsPattern("doc/*").usesSubject)
        #expect(try !RightsPattern("*").usesSubject)
    }
}
