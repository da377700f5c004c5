import ReactorHubJSON
import Reactor
import ReactorTesting
import ReactorHubKinds
import Synchronization
import Testing

@Suite("Shipped todo kind")
struct TodoReactorTests {
    /// Ids t1, t2, … in order, so that tests can name them.
    static func sequentialIDs() -> @Sendable () -> String {
        let next = Mutex(0)
        return {
            next.withLock { value in
                value += 1
                return "t\(value)"
            }
        }
    }

    func makeStore(maxItems: Int = 1000, maxTitleLength: Int = 200) -> TestStore<TodoReactor> {
        TestStore(reactor: TodoReactor(limits: TodoLimits(maxItems: maxItems, maxTitleLength: maxTitleLength), makeID: Self.sequentialIDs()))
    }

    @Test func addToggleRenameMoveRemoveClear() async {
        let store = makeStore()
        await store.send(.add(title: "Buy milk")) { $0.items = [TodoItem(id: "t1", title: "Buy milk", done: false)] }
        await store.send(.add(title: "Walk")) { $0.items.append(TodoItem(id: "t2", title: "Walk", done: false)) }
        await store.send(.toggle(id: "t1")) { $0.items[0].done = true }
        await store.send(.rename(id: "t2", title: "Walk the dog")) { $0.items[1].title = "Walk the dog" }
        await store.send(.move(from: 1, to: 0)) { $0.items.swapAt(0, 1) }
        await store.send(.add(title: "Read")) { $0.items.append(TodoItem(id: "t3", title: "Read", done: false)) }
        await store.send(.remove(id: "t3")) { $0.items.removeLast() }
        await store.send(.clearCompleted) { $0.items = [TodoItem(id: "t2", title: "Walk the dog", done: false)] }
        await store.finish()
    }

    @Test func invalidRequestsAreRefusedAndChangeNothing() async {
        let store = makeStore(maxItems: 1, maxTitleLength: 5)
        await store.send(.add(title: ""), refusedWith: "a title must have 1 to 5 characters (reactors.todo.maxTitleLength), got 0")
        await store.send(.add(title: "toolong"), refusedWith: "a title must have 1 to 5 characters (reactors.todo.maxTitleLength), got 7")
        await store.send(.add(title: "ok")) { $0.items = [TodoItem(id: "t1", title: "ok", done: false)] }
        await store.send(.add(title: "more"), refusedWith: "the list already has 1 items, the limit (reactors.todo.maxItems); remove some first")
        await store.send(.toggle(id: "nope"), refusedWith: "no item with id 'nope'")
        await store.send(.rename(id: "t1", title: "toolong"), refusedWith: "a title must have 1 to 5 characters (reactors.todo.maxTitleLength), got 7")
        await store.send(.move(from: 0, to: 1), refusedWith: "cannot move from 0 to 1: both must be in 0..<1")
        await store.send(.remove(id: "t9"), refusedWith: "no item with id 't9'")
        await store.finish()
    }

    @Test func singleItemChangesAreSingleOperations() throws {
        let items = (0..<50).map { TodoItem(id: "i\($0)", title: "item \($0)", done: false) }
        let before = try JSONValueEncoder().encode(TodoReactor.State(items: items))
        func diff(_ change: (inout [TodoItem]) -> Void) throws -> [PatchOperation] {
            var changed = items
            change(&changed)
            return JSONPatch.diff(from: before, to: try JSONValueEncoder().encode(TodoReactor.State(items: changed)))
        }
        #expect(try diff { $0[7].done = true }.count == 1)
        #expect(try diff { $0[7].title = "renamed" }.count == 1)
        #expect(try diff { $0.append(TodoItem(id: "new", title: "new", done: false)) }.count == 1)
        #expect(try diff { $0.remove(at: 20) }.count == 1)
        let forward = try diff { $0.insert($0.remove(at: 3), at: 40) }
        #expect(forward == [.move(from: "/items/3", path: "/items/40")])
        let backward = try diff { $0.insert($0.remove(at: 40), at: 3) }
        #expect(backward == [.move(from: "/items/40", path: "/items/3")])
        for (operations, change) in [(forward, (3, 40)), (backward, (40, 3))] {
            var moved = items
            moved.insert(moved.remove(at: change.0), at: change.1)
            #expect(try JSONPatch.apply(operations, to: before) == JSONValueEncoder().encode(TodoReactor.State(items: moved)))
        }
    }
}
