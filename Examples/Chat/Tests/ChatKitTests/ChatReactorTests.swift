import ChatKit
import Reactor
import ReactorTesting
import Synchronization
import Testing

@Suite("Chat")
struct ChatReactorTests {
    static let alice = Sender(user: "alice", session: "c1")
    static let bob = Sender(user: "bob", session: "c2")

    /// A chat whose message ids are m1, m2, …
    static func chat(_ settings: ChatSettings = ChatSettings()) -> ChatReactor {
        let counter = Atomic<Int>(0)
        return ChatReactor(settings: settings) { "m\(counter.add(1, ordering: .relaxed).newValue)" }
    }

    @Test func aMessageIsSignedWithTheSendersUser() async {
        let store = TestStore(reactor: Self.chat())
        await store.send(.say(text: "hi"), from: Self.alice) {
            $0.messages = [ChatMessage(id: "m1", author: "alice", text: "hi")]
        }
        await store.finish()
    }

    @Test func onlyTheAuthorMayEditItAndOthersAreForbiddenWithTheKindsSentence() async {
        let store = TestStore(reactor: Self.chat())
        await store.send(.say(text: "hi"), from: Self.alice) {
            $0.messages = [ChatMessage(id: "m1", author: "alice", text: "hi")]
        }
        await store.send(.edit(id: "m1", text: "mine now"), from: Self.bob, forbiddenWith: "only the author of a message may edit it; 'm1' is alice's")
        await store.send(.edit(id: "m1", text: "hello"), from: Self.alice) {
            $0.messages[0].text = "hello"
        }
        await store.send(.edit(id: "m9", text: "x"), from: Self.alice, refusedWith: "no message 'm9' in this chat")
        await store.finish()
    }

    @Test func withoutAUserNothingIsSaid() async {
        let store = TestStore(reactor: Self.chat())
        await store.send(.say(text: "hi"), from: nil, forbiddenWith: "this chat signs every message with its author's user: connect with a token")
        await store.send(.say(text: "hi"), from: Sender(user: nil, session: "c5"), forbiddenWith: "this chat signs every message with its author's user: connect with a token")
        await store.finish()
    }

    @Test func membersFollowTheConnectionsOfEachUser() async {
        let store = TestStore(reactor: Self.chat())
        let aliceAgain = Sender(user: "alice", session: "c3")
        await store.send(Membership(.joined, Self.alice)) { $0.members = ["alice"] }
        await store.send(Membership(.joined, Self.bob)) { $0.members = ["alice", "bob"] }
        // A second connection of alice: she is a member once; the state clients see is the same.
        await store.send(Membership(.joined, aliceAgain)) { _ in }
        await store.send(Membership(.left, Self.alice)) { _ in }
        await store.send(Membership(.left, aliceAgain)) { $0.members = ["bob"] }
        await store.finish()
    }

    @Test func theOldestMessagesGoPastMaxMessagesAndTextLengthsAreBounded() async {
        var settings = ChatSettings()
        settings.maxMessages = 2
        settings.maxTextLength = 5
        let store = TestStore(reactor: Self.chat(settings))
        await store.send(.say(text: "one"), from: Self.alice) { $0.messages = [ChatMessage(id: "m1", author: "alice", text: "one")] }
        await store.send(.say(text: "two"), from: Self.bob) { $0.messages.append(ChatMessage(id: "m2", author: "bob", text: "two")) }
        await store.send(.say(text: "three"), from: Self.alice) {
            $0.messages = [ChatMessage(id: "m2", author: "bob", text: "two"), ChatMessage(id: "m3", author: "alice", text: "three")]
        }
        await store.send(.say(text: "too long"), from: Self.alice, refusedWith: "a message has 1 to 5 characters (reactors.chat.maxTextLength), got 8")
        await store.send(.say(text: ""), from: Self.alice, refusedWith: "a message has 1 to 5 characters (reactors.chat.maxTextLength), got 0")
        await store.finish()
    }
}
