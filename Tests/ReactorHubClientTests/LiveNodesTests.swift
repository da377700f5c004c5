import Foundation
import ReactorHubJSON
import ReactorHubClient
import ReactorHubKinds
import Testing
import TestSupport

/// The todo kind's actions declared as docs/reactors.md declares a reactor's: `Decodable`
/// only (no `Encodable`), as an app that shares the reactor's code has them.
enum DecodableTodoAction: Decodable, Sendable {
    case add(title: String)
    case toggle(id: String)
    case rename(id: String, title: String)
    case move(from: Int, to: Int)
    case clearCompleted
}

/// The todo kind's state, as the app reads it.
struct TodoState: Decodable, Sendable, Equatable {
    struct Item: Decodable, Sendable, Equatable {
        var id: String
        var title: String
        var done: Bool
    }
    var items: [Item]
}

/// The client against real daemons: several URLs with a node that dies (two daemons on a
/// `redis-server` of the test's own), the closing handshake the server sees, and actions of
/// a `Decodable`-only enum.
@Suite(.serialized, .enabled(if: DaemonProcess.isAvailable, "needs the reactorhub binary (swift build --product reactorhub)"))
struct LiveNodesTests {
    func options() -> HubClientOptions {
        var options = HubClientOptions()
        options.initialDelay = .milliseconds(50)
        options.maxDelay = .milliseconds(400)
        return options
    }

    @Test func aClientWhoseNodeDiedMovesToTheNextURLAndResumesThere() async throws {
        let redis = try await RedisServer.start()
        let prefix = "rhclient\(UInt32.random(in: 0...UInt32.max))"
        func config(_ node: String) -> String {
            #"{"reactors":{"counter":{"delayMs":50}},"cluster":{"redis":"127.0.0.1:\#(redis.port)","nodeId":"\#(node)","leaseMs":1500,"keyPrefix":"\#(prefix)"}}"#
        }
        let first = try await DaemonProcess.start(config: config("n1"), name: "client-nodes-n1")
        let second = try await DaemonProcess.start(config: config("n2"), name: "client-nodes-n2")
        // Port 1 on the loopback: nothing listens there, the connection is refused.
        let hub = try await HubClient.connect(["ws://127.0.0.1:1/ws", first.url, second.url], options: options(), logger: clientTestLogger)
        #expect(hub.server?.node == "n1")
        let counter = try await hub.join("counter/nodes\(UInt32.random(in: 0...UInt32.max))", state: CounterReactor.State.self, action: CounterReactor.Action.self)
        try await counter.send(.increase)
        #expect(await eventually { counter.currentState.value == 1 && !counter.currentState.isLoading })
        let epoch = counter.epoch

        first.kill()
        // The next URL after n1's is n2's: the client's hello comes from there.
        #expect(await eventually { hub.server?.node == "n2" && hub.status == .open(session: hub.server?.session ?? "") })
        #expect(counter.epoch == epoch)
        #expect(counter.currentState.value == 1)
        // Until n2 takes over the instance n1 owned (within leaseMs + 1 s), actions are
        // answered `overloaded` (CLUSTER.md): sent again until one is accepted.
        var outcome = await Self.send(.increase, to: counter)
        for _ in 0..<20 where (try? outcome.get()) == nil {
            #expect(outcome.failure?.code == .overloaded)
            outcome = await Self.send(.increase, to: counter)
        }
        _ = try outcome.get()
        #expect(await eventually { counter.currentState.value == 2 && !counter.currentState.isLoading })
        await hub.close()
        second.kill()
        await redis.stop()
    }

    static func send(_ action: CounterReactor.Action, to counter: RemoteReactor<CounterReactor.State, CounterReactor.Action>) async -> Result<Int, HubClientError> {
        do {
            return .success(try await counter.send(action))
        } catch {
            return .failure(error)
        }
    }

    @Test func closeSendsANormalClosureThatTheServerLogsEveryTime() async throws {
        let name = "client-close-\(UUID().uuidString)"
        let daemon = try await DaemonProcess.start(
            config: #"{"persistence":{"kind":"memory"},"logLevel":"info","logFormat":"json"}"#,
            name: name
        )
        defer { daemon.kill() }
        let runs = 5
        for run in 0..<runs {
            let hub = try await HubClient.connect(daemon.url, options: options(), logger: clientTestLogger)
            _ = try await hub.join("counter/close\(run)")
            await hub.close()
        }
        let log = (ProcessInfo.processInfo.environment["REACTORHUB_TEST_OUTPUT"] ?? DaemonProcess.root + "/test-output") + "/\(name).log"
        func closes() -> [JSONValue] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
                .filter { $0["message"]?.stringValue == "connection closed" }
        }
        #expect(await eventually { closes().count == runs })
        #expect(closes().map { $0["metadata"]?["code"]?.stringValue } == Array(repeating: "1000", count: runs))
        #expect(closes().map { $0["metadata"]?["reason"]?.stringValue } == Array(repeating: "client closed", count: runs))
    }

    @Test func aReactorsDecodableOnlyActionsAreSentAsTheyAre() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let hub = try await HubClient.connect(daemon.url, options: options(), logger: clientTestLogger)
        let todo = try await hub.join("todo/decodable\(UInt32.random(in: 0...UInt32.max))", state: TodoState.self, action: DecodableTodoAction.self)
        try await todo.send(.add(title: "Buy milk"))
        try await todo.send(.add(title: "Call Ann"))
        #expect(await eventually { todo.currentState.items.count == 2 })
        let ids = todo.currentState.items.map(\.id)
        try await todo.send(.rename(id: ids[0], title: "Buy oat milk"))
        try await todo.send(.move(from: 1, to: 0))
        try await todo.send(.toggle(id: ids[0]))
        try await todo.send(.clearCompleted)
        #expect(await eventually { todo.currentState.items.map(\.title) == ["Call Ann"] })
        #expect(todo.currentState.items.map(\.done) == [false])
        await hub.close()
    }
}

extension Result {
    /// The error of a failure.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
