import Dispatch
import ReactorHubJSON
import ReactorHubLocking
import Reactor
import TestSupport
import Testing
import ReactorHubWebSocketServer
@testable import ReactorHubEngine
import ReactorHubProtocol

/// What becomes of actions that wait in an instance (issue "Bounded under attack",
/// finding 2): they are not run for nobody, and they do not hold the shutdown.
@Suite("Waiting actions")
struct BacklogTests {
    /// The actions of a connection that closed while they waited are withdrawn, not run.
    @Test func actionsOfAClosedConnectionAreNotRun() async throws {
        let release = DispatchSemaphore(value: 0)
        let holding = Latch()
        let registry = ReactorRegistry()
        registry.register("holding") { HoldingReactor(holding: holding, release: release) }
        try await withHub(registry: registry) { hub, server in
            let sender = try await server.connect()
            try await sender.join("holding/x")
            try await sender.send(#"{"type":"action","reactor":"holding/x","action":"hold"}"#)
            for _ in 0..<3 {
                try await sender.send(#"{"type":"action","reactor":"holding/x","action":"bump"}"#)
            }
            await holding.wait()
            try await waitUntil { hub.load.pending == 4 }
            let id = try #require(UInt64(sender.session.dropFirst()).map(ConnectionID.init(rawValue:)))
            await sender.abort()
            try await waitUntil { hub.queuedBytes(of: id) == nil }  // its outbox is closed
            release.signal()

            let other = try await server.connect()
            #expect(try await other.join("holding/x")["type"] == "snapshot")
            try await other.send(#"{"type":"action","reactor":"holding/x","action":"bump","ref":1}"#)
            var ack = try await other.next()
            while ack["type"] == "patch" {  // hold's patch, if it was published after the join
                ack = try await other.next()
            }
            // Accepted at version 1: only `hold` ran before it.
            #expect(ack["type"] == "ack" && ack["version"] == 1, "\(ack)")
            #expect(try await other.next()["version"] == 2)
        }
    }

    /// Actions still waiting when the hub drains are answered `overloaded` instead of run;
    /// the one already running finishes and its patch is delivered; then 1001.
    @Test func actionsWaitingWhenTheHubDrainsAreAnsweredOverloaded() async throws {
        let release = DispatchSemaphore(value: 0)
        let holding = Latch()
        let registry = ReactorRegistry()
        registry.register("holding") { HoldingReactor(holding: holding, release: release) }
        let transport = InMemoryTransport()
        let hub = Hub(configuration: HubConfiguration(), registry: registry, transport: transport, logger: testLogger)
        try hub.start()
        let client = try await ProtocolClient(connection: transport.connect())
        try await client.join("holding/bye")
        try await client.send(#"{"type":"action","reactor":"holding/bye","action":"hold","ref":1}"#)
        for ref in 2...4 {
            try await client.send(#"{"type":"action","reactor":"holding/bye","action":"bump","ref":\#(ref)}"#)
        }
        await holding.wait()
        try await waitUntil { hub.load.pending == 4 }
        async let stopped: Void = hub.shutdown(grace: .seconds(30))
        while transport.isAccepting {
            await Task.yield()
        }
        release.signal()

        var acks: [Int] = []
        var refusals: [Int] = []
        var versions: [Int] = []
        for _ in 0..<5 {
            let message = try await client.next()
            switch message["type"]?.stringValue {
            case "ack": acks.append(message["ref"]?.intValue ?? -1)
            case "error" where message["code"] == "overloaded": refusals.append(message["ref"]?.intValue ?? -1)
            case "patch": versions.append(message["version"]?.intValue ?? -1)
            default: Issue.record("unexpected \(message)")
            }
        }
        #expect(acks == [1])
        #expect(refusals == [2, 3, 4])
        #expect(versions == [1])
        #expect(try await client.closeCode() == 1001)
        await stopped
    }

    /// The grace bounds the shutdown's wait for instances: an effect that never ends does
    /// not hold it.
    @Test func theGraceBoundsTheWaitForABusyInstance() async throws {
        let gate = Latch()
        let registry = ReactorRegistry()
        registry.register("gated") { GatedReactor(gate: gate) }
        let transport = InMemoryTransport()
        let hub = Hub(configuration: HubConfiguration(), registry: registry, transport: transport, logger: testLogger)
        try hub.start()
        let client = try await ProtocolClient(connection: transport.connect())
        try await client.join("gated/forever")
        try await client.send(#"{"type":"action","reactor":"gated/forever","action":"start","ref":1}"#)
        #expect(try await client.next()["type"] == "ack")

        let finished = Latch()
        Task {
            await hub.shutdown(grace: .milliseconds(300))
            finished.open()
        }
        let inTime = await finished.wait(timeout: .seconds(30))
        gate.open() // a hub that waits for the effect anyway can finish now
        #expect(inTime)
        _ = await finished.wait(timeout: .seconds(30))
    }
}

/// Polls `condition` (state the hub keeps behind locks) until it holds.
private func waitUntil(timeout: Duration = .seconds(60), _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A counter whose `hold` action blocks its instance's serial context (having opened
/// `holding`) until the test signals `release`, so that the actions sent after it wait in
/// the instance.
final class HoldingReactor: Reactor {
    enum Action: Decodable, Sendable { case hold, bump }
    enum Mutation: Sendable { case bump }
    struct State: Codable, Sendable, Equatable {
        var count = 0
    }

    let initialState = State()
    let holding: Latch
    let release: DispatchSemaphore

    init(holding: Latch, release: DispatchSemaphore) {
        self.holding = holding
        self.release = release
    }

    func mutate(action: Action) -> Effect<Mutation> {
        if case .hold = action {
            holding.open()
            release.wait()
        }
        return .just(.bump)
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        state.count += 1
        return state
    }
}
