import ReactorHubAuth
import Foundation
import Testing
@testable import ReactorHubEngine

@Suite("Verified token cache")
struct VerifiedTokenCacheTests {
    private static func verified(_ subject: String) -> Identity {
        let expires = Date(timeIntervalSince1970: 2_000_000_000)
        return Identity(subject: subject, issuedAt: nil, validUntil: expires, expires: expires, rights: Rights.none)
    }

    private static func fill(_ cache: inout VerifiedTokenCache, _ tokens: Range<Int>) {
        for index in tokens { cache.insert(verified("u\(index)"), for: "t\(index)") }
    }

    @Test func aTokenVerifiedJustBeforeTheNewerGenerationFilledIsStillFound() {
        var cache = VerifiedTokenCache(capacity: 4)
        Self.fill(&cache, 0..<4)
        // The fifth insert turns the four into the older generation.
        Self.fill(&cache, 4..<7)
        #expect(cache.count == 7)
        #expect(cache.lookUp("t0")?.subject == "u0")
        #expect(cache.lookUp("t6")?.subject == "u6")
        #expect(cache.lookUp("t9") == nil)
    }

    @Test func theOldestGenerationIsDroppedAndTheSizeStaysBounded() {
        var cache = VerifiedTokenCache(capacity: 4)
        Self.fill(&cache, 0..<100)
        #expect(cache.count <= 8)
        // 96…99 are the newer generation, 92…95 the older; 0…91 are gone. (Looking one of
        // the older up moves it to the newer, which turns the generation: look up one.)
        #expect((96..<100).allSatisfy { cache.lookUp("t\($0)")?.subject == "u\($0)" })
        #expect(cache.lookUp("t92")?.subject == "u92")
        #expect(cache.lookUp("t91") == nil)
        #expect(cache.lookUp("t0") == nil)
    }

    @Test func aTokenFoundInTheOlderGenerationMovesToTheNewerOne() {
        var cache = VerifiedTokenCache(capacity: 2)
        Self.fill(&cache, 0..<3)  // older: t0 t1; newer: t2
        #expect(cache.lookUp("t0")?.subject == "u0")  // newer: t2 t0
        Self.fill(&cache, 3..<4)  // older: t2 t0; newer: t3
        #expect(cache.lookUp("t0")?.subject == "u0")
        #expect(cache.lookUp("t1") == nil)
    }

    @Test func insertingAKeptTokenAgainDoesNotTurnTheGeneration() {
        var cache = VerifiedTokenCache(capacity: 2)
        Self.fill(&cache, 0..<2)
        cache.insert(Self.verified("again"), for: "t1")
        #expect(cache.count == 2)
        #expect(cache.lookUp("t0")?.subject == "u0")
        #expect(cache.lookUp("t1")?.subject == "again")
    }

    @Test func aRemovedTokenIsGoneFromBothGenerations() {
        var cache = VerifiedTokenCache(capacity: 2)
        Self.fill(&cache, 0..<3)
        cache.remove("t0")
        cache.remove("t2")
        #expect(cache.lookUp("t0") == nil)
        #expect(cache.lookUp("t2") == nil)
        #expect(cache.lookUp("t1")?.subject == "u1")
        #expect(cache.count == 1)
    }
}
