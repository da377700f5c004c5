extension SelfTest {
    /// Spreads (reactors, subscribers, senders) that `layoutProblems` checks.
    static let layouts = [(1, 100, 1), (1, 100, 4), (20, 40, 4), (8, 80, 8), (3, 30, 12), (1000, 10_000, 10)]
    /// Spreads that `ReactorLayout` must refuse: N not a multiple of R; neither of R and S
    /// a multiple of the other.
    static let refusedLayouts = [(3, 10, 1), (4, 8, 6)]

    /// What is wrong with the layout of R reactors, N subscribers and S senders: every
    /// reactor must have N/R subscribers and max(1, S/R) links, every sender max(1, R/S)
    /// links, the places of a reactor's links and the turns of a sender's must each name
    /// every one of them once, and with one reactor the links must be the senders.
    static func layoutProblems(reactors: Int, subscribers: Int, senders: Int) -> [String] {
        guard let layout = try? ReactorLayout(reactors: reactors, subscribers: subscribers, senders: senders) else {
            return ["refused"]
        }
        var problems: [String] = []
        var perReactor = Array(repeating: 0, count: reactors)
        for subscriber in 0..<subscribers { perReactor[layout.reactor(ofSubscriber: subscriber)] += 1 }
        if perReactor.contains(where: { $0 != subscribers / reactors }) { problems.append("subscribers per reactor \(Set(perReactor))") }
        if layout.links != max(reactors, senders) { problems.append("\(layout.links) links") }
        for reactor in 0..<reactors {
            let links = (0..<layout.linksPerReactor).map { layout.link(ofReactor: reactor, place: $0) }
            if links.contains(where: { $0 >= layout.links || layout.reactor(ofLink: $0) != reactor })
                || links.map(layout.place(ofLink:)) != Array(0..<layout.linksPerReactor) {
                problems.append("links of reactor \(reactor): \(links)")
                break
            }
        }
        var seen = Set<Int>()
        for sender in 0..<senders {
            let links = (0..<layout.linksPerSender).map { layout.link(ofSender: sender, turn: $0) }
            if links.contains(where: { $0 >= layout.links || layout.sender(ofLink: $0) != sender }) {
                problems.append("links of sender \(sender): \(links)")
                break
            }
            seen.formUnion(links)
        }
        if seen.count != layout.links { problems.append("the senders' turns reach \(seen.count) of \(layout.links) links") }
        if reactors == 1 && (0..<senders).contains(where: { layout.link(ofSender: $0, turn: 0) != $0 || layout.place(ofLink: $0) != $0 }) {
            problems.append("with one reactor, link ≠ sender")
        }
        return problems
    }

    /// Prints one line per layout; returns the number of failures.
    static func runLayouts() -> Int {
        var failures = 0
        for (reactors, subscribers, senders) in layouts {
            let name = "layout \(reactors) reactors, \(subscribers) subscribers, \(senders) senders"
            let problems = layoutProblems(reactors: reactors, subscribers: subscribers, senders: senders)
            if problems.isEmpty {
                print("ok    \(name)")
            } else {
                failures += 1
                print("FAIL  \(name): \(problems.joined(separator: "; "))")
            }
        }
        for (reactors, subscribers, senders) in refusedLayouts {
            let name = "layout \(reactors) reactors, \(subscribers) subscribers, \(senders) senders refused"
            if (try? ReactorLayout(reactors: reactors, subscribers: subscribers, senders: senders)) == nil {
                print("ok    \(name)")
            } else {
                failures += 1
                print("FAIL  \(name): accepted")
            }
        }
        return failures
    }
}
