public import Reactor

/// A shared to-do list (ReactorKit's RxTodo example, made multi-user): items with
/// server-assigned ids, added, toggled, renamed, removed, moved and cleared by anyone.
/// Invalid requests (an unknown id, an empty or over-long title, an out-of-range move, an
/// add past `maxItems`) are refused with the reason, and nothing changes.
public final class TodoReactor: Reactor {
    public enum Action: Codable, Sendable, Equatable {
        case add(title: String)
        case toggle(id: String)
        case rename(id: String, title: String)
        case remove(id: String)
        case move(from: Int, to: Int)
        case clearCompleted
    }

    public enum Mutation: Sendable {
        case append(TodoItem)
        case setDone(index: Int, done: Bool)
        case setTitle(index: Int, title: String)
        case remove(index: Int)
        case move(from: Int, to: Int)
        case removeCompleted
    }

    public struct State: Codable, Sendable, Equatable {
        public var items: [TodoItem]

        public init(items: [TodoItem] = []) {
            self.items = items
        }
    }

    public let initialState = State()
    private let limits: TodoLimits
    private let makeID: @Sendable () -> String

    /// Creates a list with `limits`; `makeID` assigns ids (random by default, injectable
    /// for tests).
    public init(limits: TodoLimits = TodoLimits(), makeID: @escaping @Sendable () -> String = TodoItem.randomID) {
        self.limits = limits
        self.makeID = makeID
    }

    public func mutate(action: Action) throws -> Effect<Mutation> {
        let items = currentState.items
        switch action {
        case .add(let title):
            try validate(title: title)
            guard items.count < limits.maxItems else {
                throw ActionRefusal("the list already has \(items.count) items, the limit (reactors.todo.maxItems); remove some first")
            }
            var id = makeID()
            while items.contains(where: { $0.id == id }) { id = makeID() }
            return .just(.append(TodoItem(id: id, title: title, done: false)))

        case .toggle(let id):
            let index = try indexOf(id, in: items)
            return .just(.setDone(index: index, done: !items[index].done))

        case .rename(let id, let title):
            let index = try indexOf(id, in: items)
            try validate(title: title)
            return .just(.setTitle(index: index, title: title))

        case .remove(let id):
            return .just(.remove(index: try indexOf(id, in: items)))

        case .move(let from, let to):
            guard items.indices.contains(from), items.indices.contains(to) else {
                let range = items.isEmpty ? "the list is empty" : "both must be in 0..<\(items.count)"
                throw ActionRefusal("cannot move from \(from) to \(to): \(range)")
            }
            return .just(.move(from: from, to: to))

        case .clearCompleted:
            return .just(.removeCompleted)
        }
    }

    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .append(let item):
            state.items.append(item)
        case .setDone(let index, let done):
            state.items[index].done = done
        case .setTitle(let index, let title):
            state.items[index].title = title
        case .remove(let index):
            state.items.remove(at: index)
        case .move(let from, let to):
            let item = state.items.remove(at: from)
            state.items.insert(item, at: to)
        case .removeCompleted:
            state.items.removeAll { $0.done }
        }
        return state
    }

    private func indexOf(_ id: String, in items: [TodoItem]) throws -> Int {
        guard let index = items.firstIndex(where: { $0.id == id }) else {
            throw ActionRefusal("no item with id '\(id)'")
        }
        return index
    }

    private func validate(title: String) throws {
        // Bytes first: counting characters walks the whole string, and one "character"
        // can be any number of combining marks.
        let bytes = title.utf8.count
        guard bytes <= limits.maxTitleBytes else {
            throw ActionRefusal("a title may take at most \(limits.maxTitleBytes) bytes of UTF-8 (reactors.todo.maxTitleBytes), got \(bytes)")
        }
        let length = title.count
        guard length >= 1, length <= limits.maxTitleLength else {
            throw ActionRefusal(
                "a title must have 1 to \(limits.maxTitleLength) characters (reactors.todo.maxTitleLength), got \(length)"
            )
        }
    }
}

/// The limits of the todo kind (`reactors.todo` in the configuration).
public struct TodoLimits: Sendable, Equatable {
    public var maxItems: Int
    public var maxTitleLength: Int
    /// UTF-8 bytes a title may take, whatever its character count.
    public var maxTitleBytes: Int

    public init(maxItems: Int = 1000, maxTitleLength: Int = 200, maxTitleBytes: Int = 800) {
        self.maxItems = maxItems
        self.maxTitleLength = maxTitleLength
        self.maxTitleBytes = maxTitleBytes
    }
}

/// One item of a shared list.
public struct TodoItem: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var done: Bool

    public init(id: String, title: String, done: Bool) {
        self.id = id
        self.title = title
        self.done = done
    }

    /// Eight random hex digits: unique in practice, and never reused for another item
    /// the way a counter restarting after a restore could be.
    @Sendable public static func randomID() -> String {
        let value = UInt32.random(in: 0...UInt32.max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
