import ReactorHubAuth
import Foundation
import Testing

/// The verifier against tokens that PyJWT made: the checked-in vectors, and a fresh run of
/// the generator.
@Suite struct TokenVectorTests {
    @Test func loadsCheckedInVectors() throws {
        let file = try VectorFile(contentsOf: VectorFile.checkedInURL)
        #expect(file.vectors.count >= 100)
        #expect(file.now == Date(timeIntervalSince1970: 1_767_225_600))
    }

    @Test(arguments: VectorFile.checkedIn?.vectors ?? [])
    func checkedInVectorHasItsExpectedOutcome(_ vector: TokenVector) throws {
        let file = try #require(VectorFile.checkedIn)
        try file.expectOutcome(of: vector)
    }

    @Test func everyRefusalReasonButRevokedIsCoveredByAVector() throws {
        let file = try #require(VectorFile.checkedIn)
        let covered = Set(file.vectors.compactMap(\.reason))
        let expected = Set(TokenRefusal.Reason.allCases).subtracting([.revoked])
        #expect(covered == expected)
        #expect(Set(file.vectors.filter { $0.reason == nil }.map(\.alg)) == ["HS256", "RS256", "ES256"])
    }

    @Test func freshlyGeneratedVectorsHaveTheirExpectedOutcomes() throws {
        guard Python.hasPyJWT() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("auth-vectors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("tokens.json")

        let run = try Python.run("make_vectors.py", [output.path])
        try #require(run.status == 0, "make_vectors.py failed: \(run.output)")
        let fresh = try VectorFile(contentsOf: output)
        let checkedIn = try #require(VectorFile.checkedIn)

        #expect(fresh.vectors.map(\.name) == checkedIn.vectors.map(\.name), "the checked-in tokens.json is stale: run make_vectors.py")
        for vector in fresh.vectors {
            try fresh.expectOutcome(of: vector)
        }
    }
}
