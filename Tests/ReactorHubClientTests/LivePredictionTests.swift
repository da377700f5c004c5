import Foundation
import ReactorHubJSON
import ReactorHubLocking
import Reactor
import ReactorHubClient
import ReactorHubKinds
import Testing

typealias TodoList = RemoteReactor<TodoReactor.State, TodoReactor.Action>

/// Prediction against real `reactorhub` processes, each client behind a `LatencyProxy` that
/// adds latency, holds the server's answers, and drops connections (CLIENTS.md
/// "Prediction"). The predictor is the kind's own code (`ReactorHubKinds`, which the daemon
/// serves too). Nothing waits with a fixed sleep: the proxy tells when the server answered.
@Suite(.serialized, .enabled(if: DaemonProcess.isAvailable, "needs the reactorhub binary (swift build --product reactorhub)"))
struct LivePredictionTests {
    func unique(_ kind: String) -> String {
        "\(kind)/p\(UInt32.random(in: 0...UInt32.max))"
    }

    func connect(_ url: String, configure: (inout HubClientOptions) -> Void = { _ in }) async throws -> HubClient {
        var options = HubClientOptions()
        options.initialDelay = .milliseconds(50)
        options.maxDelay = .milliseconds(400)
        configure(&options)
        return try await HubClient.connect(url, options: options, logger: clientTestLogger)
    }

    func joinTodo(_ hub: HubClient, _ address: String, predicted: Bool = true) async throws -> TodoList {
        try await hub.join(
            address, state: TodoReactor.State.self, action: TodoReactor.Action.self,
            predictor: predicted ? .reactor(TodoReactor()) : nil
        )
    }

    /// A daemon (`config`), a proxy to it with `latency`, a client through the proxy, and a
    /// todo list joined on it; the caller kills the daemon and stops the proxy.
    func start(
        config: String = DaemonProcess.memoryConfig, latency: Duration, predicted: Bool = true,
        configure: (inout HubClientOptions) -> Void = { _ in }
    ) async throws -> (daemon: DaemonProcess, proxy: LatencyProxy, hub: HubClient, address: String, list: TodoList) {
        let daemon = try await DaemonProcess.start(config: config, name: "client-prediction")
        let proxy = try LatencyProxy(targetPort: daemon.port, latency: latency)
        let hub = try await connect(proxy.url, configure: configure)
        let address = unique("todo")
        return (daemon, proxy, hub, address, try await joinTodo(hub, address, predicted: predicted))
    }

    /// The state as compact JSON text.
    static func text(_ state: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(state)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The server's state of `address` now, from a fresh join on a connection of its own.
    static func serverState(_ daemon: DaemonProcess, _ address: String) async throws -> (text: String, version: Int) {
        let hub = try await HubClient.connect(daemon.url, logger: clientTestLogger)
        let fresh = try await hub.join(address)
        let result = (text(fresh.revision.state), fresh.version)
        await hub.close()
        return result
    }

    @Test func theShownStateHasTheActionBeforeTheAckAndTheServersStateOnceConfirmed() async throws {
        let (daemon, proxy, hub, address, list) = try await start(latency: .milliseconds(150))
        defer { daemon.kill(); proxy.stop() }
        let counter = try await hub.join(
            unique("counter"), state: CounterReactor.State.self, action: CounterReactor.Action.self, predictor: .reactor(CounterReactor())
        )
        let before = proxy.count(.down, type: "ack")

        proxy.hold(.down)
        async let added = list.dispatch(.add(title: "milk"))
        async let increased = counter.dispatch(.increase)
        #expect(await eventually { list.pendingCount == 1 && counter.pendingCount == 1 })
        #expect(list.state.items.map(\.title) == ["milk"])
        #expect(list.confirmedState.items.isEmpty)
        #expect((counter.state.value, counter.state.isLoading) == (0, true))    // setLoading(true) only
        // The server has answered both; the client has not heard yet and shows its prediction.
        #expect(await eventually { proxy.count(.down, type: "ack") == before + 2 })
        #expect(list.pendingCount == 1 && list.version == 0)
        #expect(list.state.items.map(\.title) == ["milk"])

        proxy.release(.down)
        let ack = try await added
        #expect((ack.version, ack.applied) == (0, 1))
        _ = try await increased
        #expect(await eventually { list.pendingCount == 0 })
        let server = try await Self.serverState(daemon, address)
        #expect(Self.text(list.revision.state) == server.text)
        #expect(Self.text(list.revision.confirmedState) == server.text)
        #expect(list.version == server.version)
        // The counter's delayed mutations come from the server; the client fired no pulse itself.
        #expect(await eventually { counter.state.value == 1 && !counter.state.isLoading && counter.pendingCount == 0 })
        #expect(await eventually { counter.state.$alertMessage.valueUpdatedCount == 1 })
        await hub.close()
    }

    /// Three writers, each behind a proxy with its own random latency, send random actions
    /// without waiting for answers (some refused: an id only predicted, a move out of range).
    /// Once nothing is pending, every client shows the server's state, byte for byte.
    @Test(arguments: 0..<20)
    func concurrentWritersConvergeOnTheServersBytesOnceNothingIsPending(run: Int) async throws {
        let daemon = try await DaemonProcess.start(name: "client-prediction-\(run)")
        defer { daemon.kill() }
        var random = SplitMix(seed: UInt64(run) &* 7919 &+ 17)
        let address = unique("todo")
        var proxies: [LatencyProxy] = []
        var hubs: [HubClient] = []
        var lists: [TodoList] = []
        for _ in 0..<3 {
            let proxy = try LatencyProxy(targetPort: daemon.port, latency: .milliseconds(random.next(below: 40)))
            proxies.append(proxy)
            let hub = try await connect(proxy.url)
            hubs.append(hub)
            lists.append(try await joinTodo(hub, address))
        }
        let plans = (0..<3).map { _ in (0..<12).map { _ in random.next(below: 1_000_000) } }
        let outcomes = await withTaskGroup(of: (accepted: Int, refused: Int).self) { group in
            for (list, plan) in zip(lists, plans) {
                group.addTask {
                    await withTaskGroup(of: Bool.self) { sends in
                        for (step, roll) in plan.enumerated() {
                            let action = Self.action(roll: roll, step: step, items: list.state.items)
                            sends.addTask {
                                do throws(HubClientError) {
                                    try await list.send(action)
                                    return true
                                } catch {
                                    return false
                                }
                            }
                            if roll % 3 == 0 { await Task.yield() }
                        }
                        var counts = (accepted: 0, refused: 0)
                        for await accepted in sends {
                            if accepted { counts.accepted += 1 } else { counts.refused += 1 }
                        }
                        return counts
                    }
                }
            }
            var all: [(accepted: Int, refused: Int)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.map { $0.accepted + $0.refused } == [12, 12, 12])
        #expect(await eventually { lists.allSatisfy { $0.pendingCount == 0 } }, "run \(run)")
        let server = try await Self.serverState(daemon, address)
        #expect(await eventually { lists.allSatisfy { $0.version == server.version } }, "run \(run)")
        for list in lists {
            #expect(Self.text(list.revision.state) == server.text, "run \(run)")
            #expect(Self.text(list.revision.confirmedState) == server.text, "run \(run)")
        }
        for hub in hubs { await hub.close() }
        proxies.forEach { $0.stop() }
    }

    static func action(roll: Int, step: Int, items: [TodoItem]) -> TodoReactor.Action {
        let item = items.isEmpty ? nil : items[roll % items.count]
        switch (roll % 7, item) {
        case (1, let item?): return .toggle(id: item.id)
        case (2, let item?): return .rename(id: item.id, title: "renamed \(step)")
        case (3, let item?): return .remove(id: item.id)
        case (4, _): return .move(from: roll % 5, to: (roll / 7) % 5)
        case (5, _): return .clearCompleted
        default: return .add(title: "item \(step).\(roll % 100)")
        }
    }

    @Test func aRefusalTheClientCouldNotForeseeRollsBackInOneChange() async throws {
        // The server allows one item; the app's predictor knows only the default limit.
        let config = #"{"persistence":{"kind":"memory"},"reactors":{"todo":{"maxItems":1}}}"#
        let (daemon, proxy, hub, address, list) = try await start(config: config, latency: .milliseconds(50))
        defer { daemon.kill(); proxy.stop() }
        let revisions = list.revisions(bufferingNewest: 64)

        proxy.hold(.up)                                            // both go out together
        let first = Task { try await list.dispatch(.add(title: "one")) }
        #expect(await eventually { list.pendingCount == 1 })
        let second = Task { () -> (HubClientError?, [String]) in
            do throws(HubClientError) {
                _ = try await list.dispatch(.add(title: "two"))
                return (nil, [])
            } catch {
                return (error, list.state.items.map(\.title))
            }
        }
        #expect(await eventually { list.pendingCount == 2 })
        proxy.release(.up)
        _ = try await first.value
        let (refusal, shownWhenRefused) = await second.value
        #expect(shownWhenRefused == ["one"])                        // rolled back before the throw
        #expect(refusal?.code == .invalidAction)
        #expect(await eventually { list.pendingCount == 0 && list.version == 1 })
        var shown: [[String]] = []
        var causes: [Revision.Cause] = []
        var iterator = revisions.makeAsyncIterator()
        while revisions.buffered > 0, let revision = await iterator.next() {
            shown.append((revision.state["items"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue })
            causes.append(revision.cause)
        }
        // Snapshot, the two predictions, then the first add confirmed and the refusal in the
        // order the daemon sent them: PROTOCOL.md "Acks" puts each reply only before the frames
        // its own action causes, so when both actions are applied in one burst the refusal may
        // come before the patch of the first (the patch then changes nothing shown). Either
        // way the refusal is one revision back to the server's state, the client's own
        // (`.prediction`), and nothing flickers.
        #expect(shown.first == [])
        #expect(shown.last == ["one"])
        #expect(shown.filter { $0 == ["one", "two"] }.count >= 1)
        let changed = shown.indices.dropFirst().filter { shown[$0] != shown[$0 - 1] }
        #expect(changed.map { shown[$0] } == [["one"], ["one", "two"], ["one"]])
        #expect(changed.last.map { causes[$0] } == .prediction)
        #expect(causes.filter { $0 == .patch }.count == 1)          // the first add's patch, once
        let server = try await Self.serverState(daemon, address)
        #expect(Self.text(list.revision.state) == server.text)
        await hub.close()
    }

    @Test func theOfflineQueueIsAppliedOnceEachAcrossADropRightAfterSending() async throws {
        let (daemon, proxy, hub, address, list) = try await start(latency: .milliseconds(20))
        defer { daemon.kill(); proxy.stop() }

        // Five actions reach the server and are applied; their answers are lost with the connection.
        proxy.hold(.down)
        let sent = (0..<5).map { index in Task { try await list.dispatch(.add(title: "sent \(index)")) } }
        #expect(await eventually { proxy.count(.down, type: "ack") == 5 })
        proxy.refuse(true)
        proxy.dropConnections()
        proxy.release(.down)
        #expect(await eventually { if case .reconnecting = hub.status { true } else { false } })

        // Three more while offline: queued with their ids, predicted at once.
        let queued = (0..<3).map { index in Task { try await list.dispatch(.add(title: "queued \(index)")) } }
        #expect(await eventually { list.pendingCount == 8 })
        #expect(list.state.items.count == 8)
        #expect(list.confirmedState.items.isEmpty)
        #expect(proxy.count(.up, type: "action") == 5)

        proxy.refuse(false)
        var acks: [ActionAck] = []
        for task in sent + queued { acks.append(try await task.value) }
        #expect(acks.prefix(5).allSatisfy { $0.duplicate })          // resent with their ids: not applied again
        #expect(acks.suffix(3).allSatisfy { !$0.duplicate })
        #expect(await eventually { list.pendingCount == 0 })
        let titles = list.state.items.map(\.title)
        #expect(titles.sorted() == ((0..<5).map { "sent \($0)" } + (0..<3).map { "queued \($0)" }).sorted())
        let server = try await Self.serverState(daemon, address)
        #expect(Self.text(list.revision.state) == server.text)
        #expect(list.version == server.version)
        #expect(server.version == 8)                              // each applied once
        await hub.close()
    }

    @Test func pastMaxQueuedActionsADispatchIsRefusedWithQueueFullAndTheRestIsSent() async throws {
        let (daemon, proxy, hub, address, list) = try await start(latency: .milliseconds(20)) { $0.maxQueuedActions = 3 }
        defer { daemon.kill(); proxy.stop() }
        proxy.refuse(true)
        proxy.dropConnections()
        #expect(await eventually { if case .reconnecting = hub.status { true } else { false } })

        // One after the other: tasks started together may reach dispatch in any order.
        var queued: [Task<ActionAck, any Error>] = []
        for index in 0..<3 {
            queued.append(Task { try await list.dispatch(.add(title: "q\(index)")) })
            #expect(await eventually { list.pendingCount == index + 1 })
        }
        do throws(HubClientError) {
            _ = try await list.dispatch(.add(title: "one too many"))
            Issue.record("a fourth action was queued")
        } catch {
            #expect(error.code == .queueFull)
        }
        #expect(list.pendingCount == 3)
        #expect(list.state.items.map(\.title) == ["q0", "q1", "q2"])

        proxy.refuse(false)
        for task in queued { _ = try await task.value }
        #expect(await eventually { list.pendingCount == 0 })
        let server = try await Self.serverState(daemon, address)
        #expect(Self.text(list.revision.state) == server.text)
        #expect(list.state.items.map(\.title).sorted() == ["q0", "q1", "q2"])
        await hub.close()
    }

    @Test func withPredictionOffTheStateWaitsForTheServer() async throws {
        let (daemon, proxy, hub, _, list) = try await start(latency: .milliseconds(150), predicted: false)
        defer { daemon.kill(); proxy.stop() }
        proxy.hold(.down)
        async let added = list.dispatch(.add(title: "milk"))
        #expect(await eventually { list.pendingCount == 1 })
        #expect(await eventually { proxy.count(.down, type: "ack") == 1 })
        #expect(list.state.items.isEmpty)
        #expect(list.revision.state == list.revision.confirmedState)
        proxy.release(.down)
        _ = try await added
        #expect(await eventually { list.pendingCount == 0 })
        #expect(list.state.items.map(\.title) == ["milk"])
        await hub.close()
    }
}

/// A small reproducible generator (SplitMix64), so a failing run can be repeated.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
