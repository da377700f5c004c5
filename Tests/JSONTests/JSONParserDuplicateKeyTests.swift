import ReactorHubJSON
import Testing

@Suite struct JSONParserDuplicateKeyTests {
    static let strict = JSONParser(options: .rejectDuplicateKeys)

    @Test func defaultParserKeepsTheLastOfDuplicateKeys() throws {
        let value = try JSONParser().parse(#"{"sub":"alice","sub":"bob"}"#)
        #expect(value["sub"] == "bob")
        #expect(value.objectValue?.count == 1)
    }

    @Test func rejectingParserRefusesADuplicateKeyAtTheSecondKey() {
        #expect(throws: JSONParseError.self) { try Self.strict.parse(#"{"sub":"alice","sub":"bob"}"#) }
        do {
            _ = try Self.strict.parse(#"{"sub":"alice","sub":"bob"}"#)
        } catch {
            #expect(error.code == .duplicateKey)
            #expect(error.offset == 15)
            #expect(error.message == "duplicate key 'sub' in an object, each key may appear only once")
        }
    }

    @Test func rejectingParserSeesAnEscapedSpellingAsTheSameKey() {
        do {
            _ = try Self.strict.parse(#"{"sub":"alice","su\u0062":"bob"}"#)
            Issue.record("a duplicate spelled with an escape was accepted")
        } catch {
            #expect(error.code == .duplicateKey)
        }
    }

    @Test func rejectingParserChecksNestedObjectsAndManyKeys() throws {
        do {
            _ = try Self.strict.parse(#"{"rh":{"read":[],"read":["*"]}}"#)
            Issue.record("a nested duplicate was accepted")
        } catch {
            #expect(error.code == .duplicateKey)
            #expect(error.offset == 17)
        }
        let many = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(try Self.strict.parse("{\(many)}").objectValue?.count == 20)
        #expect(throws: JSONParseError.self) { try Self.strict.parse("{\(many),\"k7\":0}") }
    }

    /// A duplicate is found whether the object is still scanned (fewer members than
    /// JSONObject's index threshold) or its keys are already in a set.
    @Test(arguments: [3, 8, 9, 30])
    func rejectingParserFindsADuplicateAfterThisManyMembers(_ count: Int) {
        let members = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        for repeated in [0, count - 1] {
            let text = "{\(members),\"k\(repeated)\":0}"
            do {
                _ = try Self.strict.parse(text)
                Issue.record("k\(repeated) repeated after \(count) members was accepted")
            } catch {
                #expect(error.code == .duplicateKey)
                #expect(error.offset == text.utf8.count - "\"k\(repeated)\":0}".utf8.count)
            }
        }
    }

    /// Keys are told apart by Unicode scalars, as JSONObject keeps them: a precomposed and a
    /// decomposed "é" are two members, not a duplicate, in a small and in a large object.
    @Test(arguments: [0, 12])
    func rejectingParserKeepsCanonicallyEquivalentKeysApart(_ others: Int) throws {
        let members = (0..<others).map { "\"k\($0)\":\($0)," }.joined()
        let value = try Self.strict.parse("{\(members)\"\u{E9}\":1,\"e\u{301}\":2}")
        #expect(value.objectValue?.count == others + 2)
        #expect(value.objectValue?.keys.suffix(2).map { Array($0.unicodeScalars) } == [["\u{E9}"], ["e", "\u{301}"]])
    }

    @Test func rejectingParserAcceptsTheSameKeyInSiblingObjects() throws {
        let value = try Self.strict.parse(#"[{"a":1},{"a":2}]"#)
        #expect(value[1]?["a"] == 2)
    }
}
