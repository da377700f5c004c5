import Reactor

/// A shared poll: someone opens it with a question and options, everyone votes once,
/// and closing it tallies the votes (through `PollAnnouncer`) and announces the winner.
public final class PollReactor: Reactor {
    public enum Action: Decodable, Sendable {
        /// Opens a new poll; refused while one is open.
        case open(question: String, options: [String])
        /// One vote per voter, for the option at `option`.
        case vote(option: Int, voter: String)
        /// Closes the poll and announces the winner.
        case close
    }

    public enum Mutation: Sendable {
        case start(question: String, options: [String])
        case count(option: Int, voter: String)
        case setTallying(Bool)
        case finish
        case announce(String)
    }

    public struct State: Codable, Sendable, Equatable {
        public var question: String?
        public var options: [String] = []
        public var votes: [Int] = []
        public var voters: [String] = []
        public var isOpen = false
        public var isTallying = false
        /// "Tea wins with 3 of 5 votes": once per close, never replayed.
        @Pulse public var announcement: String?

        public init() {}
    }

    public let initialState = State()
    private let settings: PollSettings
    private let announcer: PollAnnouncer

    public init(settings: PollSettings = PollSettings(), announcer: PollAnnouncer = .live()) {
        self.settings = settings
        self.announcer = announcer
    }

    public func mutate(action: Action) throws -> Effect<Mutation> {
        switch action {
        case let .open(question, options):
            guard !currentState.isOpen else { throw ActionRefusal("a poll is open already; close it first") }
            guard !question.isEmpty, question.utf8.count <= 200 else { throw ActionRefusal("a question takes 1 to 200 bytes") }
            guard (2...settings.maxOptions).contains(options.count) else {
                throw ActionRefusal("a poll has 2 to \(settings.maxOptions) options (reactors.poll.maxOptions), got \(options.count)")
            }
            return .just(.start(question: question, options: options))

        case let .vote(option, voter):
            guard currentState.isOpen, !currentState.isTallying else { throw ActionRefusal("no poll is open") }
            guard currentState.options.indices.contains(option) else {
                throw ActionRefusal("option \(option) does not exist; options are 0 to \(currentState.options.count - 1)")
            }
            guard !currentState.voters.contains(voter) else { throw ActionRefusal("\(voter) has voted already") }
            return .just(.count(option: option, voter: voter))

        case .close:
            guard currentState.isOpen, !currentState.isTallying else { throw ActionRefusal("no poll is open") }
            let state = currentState
            let announcer = self.announcer
            return .concat([
                .just(.setTallying(true)),
                .run { send in
                    let line = await announcer.announce(state.question ?? "", state.options, state.votes)
                    await send(.finish)
                    await send(.announce(line))
                },
            ])
        }
    }

    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case let .start(question, options):
            state.question = question
            state.options = options
            state.votes = Array(repeating: 0, count: options.count)
            state.voters = []
            state.isOpen = true
        case let .count(option, voter):
            state.votes[option] += 1
            state.voters.append(voter)
        case let .setTallying(tallying):
            state.isTallying = tallying
        case .finish:
            state.isOpen = false
            state.isTallying = false
        case let .announce(line):
            state.announcement = line
        }
        return state
    }
}
