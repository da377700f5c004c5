import ReactorHubAuth
import Testing

@Suite struct RightsTests {
    static let alice = try! Rights.parse(read: ["doc/*"], act: ["doc/team-*"], subject: "alice")

    @Test func actDoesNotImplyRead() throws {
        let rights = try Rights.parse(read: [], act: ["doc/*"], subject: "alice")
        #expect(rights.allows(.act, kind: "doc", id: "x"))
        #expect(!rights.allows(.read, kind: "doc", id: "x"))
    }

    @Test func readDoesNotImplyAct() {
        #expect(Self.alice.allows(.read, kind: "doc", id: "x"))
        #expect(!Self.alice.allows(.act, kind: "doc", id: "x"))
        #expect(Self.alice.allows(.act, kind: "doc", id: "team-x"))
    }

    @Test func noRightsAllowNothing() {
        for right in Right.allCases {
            #expect(!Rights.none.allows(right, reactor: "counter/lobby"))
        }
    }

    @Test func anyMatchingPatternAllows() throws {
        let rights = try Rights.parse(read: ["counter/lobby", "todo/*"], act: [], subject: "alice")
        #expect(rights.allows(.read, reactor: "counter/lobby"))
        #expect(rights.allows(.read, reactor: "todo/shopping"))
        #expect(!rights.allows(.read, reactor: "counter/other"))
    }

    @Test func addressesArePlainStringsOrKindAndID() {
        #expect(Self.alice.allows(.read, reactor: "doc/x"))
        #expect(Self.alice.allows(.read, kind: "doc", id: "x"))
        #expect(!Self.alice.allows(.read, reactor: "doc"))
        #expect(!Self.alice.allows(.read, reactor: "doc/x/y"))
        #expect(!Self.alice.allows(.read, reactor: ""))
    }

    @Test func anonymousRightsParseFromConfiguration() throws {
        let rights = try Rights.parse(read: ["counter/*", "doc/public"], act: ["counter/*"])
        #expect(rights.subject == nil)
        #expect(rights.read.map(\.text) == ["counter/*", "doc/public"])
        #expect(rights.allows(.read, reactor: "doc/public"))
        #expect(rights.allows(.act, reactor: "counter/lobby"))
        #expect(!rights.allows(.act, reactor: "doc/public"))
        #expect(try Rights.parse(read: [], act: []) == Rights.none)
    }

    @Test func anonymousRightsRefuseTheSubjectPlaceholder() {
        do {
            _ = try Rights.parse(read: ["doc/*"], act: ["doc/notes-{sub}"])
            Issue.record("{sub} was accepted in anonymous rights")
        } catch {
            #expect(error.pattern == "doc/notes-{sub}")
            #expect(error.description == "invalid rights pattern 'doc/notes-{sub}': {sub} needs a token's subject, and anonymous connections have none")
        }
    }

    @Test func anonymousRightsRefuseAnInvalidPattern() {
        #expect(throws: RightsPatternError(pattern: "doc", message: "expected '*', KIND/*, KIND/ID or KIND/PREFIX*, with exactly one '/'")) {
            try Rights.parse(read: ["doc"], act: [])
        }
    }

    @Test func forbiddenMessageNamesTheReactorTheRightAndThePatterns() {
        #expect(Self.alice.forbiddenMessage(.act, kind: "doc", id: "secret") == "doc/secret needs the 'act' right; this token's act patterns: doc/team-*")
        #expect(Self.alice.forbiddenMessage(.read, reactor: "counter/lobby") == "counter/lobby needs the 'read' right; this token's read patterns: doc/*")
    }

    @Test func forbiddenMessageIsNilWhenAllowed() {
        #expect(Self.alice.forbiddenMessage(.read, kind: "doc", id: "secret") == nil)
        #expect(Self.alice.forbiddenMessage(.act, reactor: "doc/team-a") == nil)
    }

    @Test func forbiddenMessageSaysNoneWithoutPatternsAndNamesAnonymousConnections() throws {
        let token = try Rights.parse(read: [], act: [], subject: "bob")
        #expect(token.forbiddenMessage(.read, reactor: "doc/x") == "doc/x needs the 'read' right; this token's read patterns: none")
        let anonymous = try Rights.parse(read: ["counter/*"], act: [])
        #expect(anonymous.forbiddenMessage(.act, reactor: "counter/lobby") == "counter/lobby needs the 'act' right; an anonymous connection's act patterns: none")
    }

    @Test func forbiddenMessageListsAtMostEightPatterns() throws {
        let many = (1...10).map { "doc/p\($0)" }
        let rights = try Rights.parse(read: many, act: [], subject: "alice")
        #expect(
            rights.forbiddenMessage(.read, reactor: "doc/x")
                == "doc/x needs the 'read' right; this token's read patterns: doc/p1, doc/p2, doc/p3, doc/p4, doc/p5, doc/p6, doc/p7, doc/p8 and 2 more"
        )
    }
}
