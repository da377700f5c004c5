import ReactorHubAuth
import Testing

@Suite struct RedactionTests {
    @Test func theSecretIsNeverPrinted() throws {
        let secret = "do-not-print-this-secret"
        let algorithm = TokenAlgorithm.hs256(secret: Array(secret.utf8))
        let verifier = try TokenVerifier(algorithm: algorithm, audience: "reactorhub")
        let minter = try TokenMinter(secret: Array(secret.utf8))
        var dumped = ""
        dump(verifier, to: &dumped)
        dump(minter, to: &dumped)
        dump(algorithm, to: &dumped)
        let printed = ["\(algorithm)", String(reflecting: algorithm), "\(verifier)", "\(minter)", dumped]
        let secretBytes = Array(secret.utf8).map(String.init).joined(separator: ", ")
        for text in printed {
            #expect(!text.contains(secret) && !text.contains(secretBytes), "\(text)")
        }
        #expect("\(algorithm)" == "HS256 (secret hidden)")
        #expect(dumped.contains("reactorhub"))
    }
}
