import PollKit
import Reactor
import ReactorTesting
import Testing

@Suite("Poll")
struct PollReactorTests {
    @Test func votesAreCountedAndClosingAnnouncesTheWinner() async {
        let store = TestStore(reactor: PollReactor(announcer: .immediate))
        await store.send(.open(question: "Lunch?", options: ["Tea", "Coffee"])) {
            $0.question = "Lunch?"
            $0.options = ["Tea", "Coffee"]
            $0.votes = [0, 0]
            $0.isOpen = true
        }
        await store.send(.vote(option: 0, voter: "ann")) {
            $0.votes = [1, 0]
            $0.voters = ["ann"]
        }
        await store.send(.vote(option: 0, voter: "bob")) {
            $0.votes = [2, 0]
            $0.voters = ["ann", "bob"]
        }
        await store.send(.close) { $0.isTallying = true }
        await store.receive {
            $0.isTallying = false
            $0.isOpen = false
        }
        await store.receive { $0.announcement = "Lunch?: Tea wins with 2 of 2 votes" }
        await store.finish()
    }

    @Test func invalidActionsAreRefusedAndChangeNothing() async {
        let store = TestStore(reactor: PollReactor(announcer: .immediate))
        await store.send(.vote(option: 0, voter: "ann"), refusedWith: "no poll is open")
        await store.send(.open(question: "One?", options: ["only"]), refusedWith: "a poll has 2 to 8 options (reactors.poll.maxOptions), got 1")
        await store.send(.open(question: "Pick", options: ["a", "b"])) {
            $0.question = "Pick"
            $0.options = ["a", "b"]
            $0.votes = [0, 0]
            $0.isOpen = true
        }
        await store.send(.open(question: "Again", options: ["a", "b"]), refusedWith: "a poll is open already; close it first")
        await store.send(.vote(option: 2, voter: "ann"), refusedWith: "option 2 does not exist; options are 0 to 1")
        await store.send(.vote(option: 1, voter: "ann")) {
            $0.votes = [0, 1]
            $0.voters = ["ann"]
        }
        await store.send(.vote(option: 0, voter: "ann"), refusedWith: "ann has voted already")
        await store.finish()
    }

    @Test func aTieIsAnnouncedAsATie() async {
        let store = TestStore(reactor: PollReactor(announcer: .immediate))
        await store.send(.open(question: "Tie?", options: ["x", "y"])) {
            $0.question = "Tie?"
            $0.options = ["x", "y"]
            $0.votes = [0, 0]
            $0.isOpen = true
        }
        await store.send(.vote(option: 0, voter: "a")) { $0.votes = [1, 0]; $0.voters = ["a"] }
        await store.send(.vote(option: 1, voter: "b")) { $0.votes = [1, 1]; $0.voters = ["a", "b"] }
        await store.send(.close) { $0.isTallying = true }
        await store.receive { $0.isTallying = false; $0.isOpen = false }
        await store.receive { $0.announcement = "Tie?: a tie between x and y with 1 of 2 votes each" }
        await store.finish()
    }
}
