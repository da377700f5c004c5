// CPU per token verification (HS256), the part of a connection's cost that an `auth`
// section adds: distinct tokens (each verified once, as at an upgrade) and one token
// verified again and again.
//
// Method: `count` HS256 tokens minted with one secret (TokenMinter), then timed with the
// monotonic clock: each verified once in order, for `repetitions` runs after one warm-up
// run; the median µs per verification is printed with the min and max. Every result is
// checked to be accepted with the minted subject.
// Build and run with: swift run -c release auth-bench [count] [repetitions]

import ReactorHubAuth
import Foundation

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.first ?? 20_000
let repetitions = arguments.dropFirst().first ?? 7
let secret = Array("bench-secret-of-at-least-thirty-two-bytes".utf8)
let now = Date()

let verifier: TokenVerifier
let minter: TokenMinter
do {
    verifier = try TokenVerifier(algorithm: .hs256(secret: secret))
    minter = try TokenMinter(secret: secret)
} catch {
    print("auth-bench: \(error)")
    exit(1)
}

var tokens: [String] = []
tokens.reserveCapacity(count)
for index in 0..<count {
    do {
        tokens.append(try minter.mint(subject: "bench-\(index)", read: ["doc/*"], act: ["doc/*"], ttl: .seconds(7200), now: now))
    } catch {
        print("auth-bench: minting failed: \(error)")
        exit(1)
    }
}

/// Verifies each of `tokens` once; µs per verification. Exits when one is refused.
func run(_ tokens: [String]) -> Double {
    let clock = ContinuousClock()
    var accepted = 0
    let elapsed = clock.measure {
        for token in tokens {
            switch verifier.verify(token, now: now) {
            case .success(let verified): accepted &+= verified.subject.utf8.count
            case .failure(let refusal):
                print("auth-bench: a minted token was refused: \(refusal)")
                exit(1)
            }
        }
    }
    precondition(accepted > 0)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return seconds * 1e6 / Double(tokens.count)
}

func report(_ name: String, _ tokens: [String]) {
    _ = run(tokens)
    let runs = (0..<repetitions).map { _ in run(tokens) }.sorted()
    let line = String(format: "%@ %.2f µs per verification (min %.2f, max %.2f; %d tokens × %d runs)",
                      name.padding(toLength: 18, withPad: " ", startingAt: 0), runs[runs.count / 2], runs[0], runs[runs.count - 1], tokens.count, repetitions)
    print(line)
}

report("hs256-distinct", tokens)
report("hs256-same", Array(repeating: tokens[0], count: count))
