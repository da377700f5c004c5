import JSON
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

    @Test func rejectingParserAcceptsTheSameKeyInSiblingObjects() throws {
        let value = try Self.strict.parse(#"[{"a":1},{"a":2}]"#)
        #expect(value[1]?["a"] == 2)
    }
}
