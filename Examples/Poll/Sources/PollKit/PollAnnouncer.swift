/// Announces a poll's result: a small struct of closures with a live and a test value
/// (as TCA's clients), so the reactor's tests run without waiting.
public struct PollAnnouncer: Sendable {
    /// The announcement for `question`'s `options` and their `votes`.
    public var announce: @Sendable (_ question: String, _ options: [String], _ votes: [Int]) async -> String

    public init(announce: @escaping @Sendable (_ question: String, _ options: [String], _ votes: [Int]) async -> String) {
        self.announce = announce
    }

    /// Tallies after `tallyMs`, as a real service would take its time.
    public static func live(tallyMs: Int = 300) -> PollAnnouncer {
        PollAnnouncer { question, options, votes in
            try? await Task.sleep(for: .milliseconds(tallyMs))
            return line(question, options, votes)
        }
    }

    /// Answers at once.
    public static let immediate = PollAnnouncer { question, options, votes in line(question, options, votes) }

    static func line(_ question: String, _ options: [String], _ votes: [Int]) -> String {
        let total = votes.reduce(0, +)
        guard let best = votes.max(), best > 0 else { return "\(question): no votes" }
        let winners = options.indices.filter { votes[$0] == best }.map { options[$0] }
        if winners.count > 1 {
            return "\(question): a tie between \(winners.joined(separator: " and ")) with \(best) of \(total) votes each"
        }
        return "\(question): \(winners[0]) wins with \(best) of \(total) votes"
    }
}
