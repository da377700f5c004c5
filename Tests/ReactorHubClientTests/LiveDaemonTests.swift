import Foundation
import ReactorHubJSON
import Reactor
import ReactorHubClient
import ReactorHubKinds
import Testing

/// The client against a real `reactorhub` process (Support/DaemonProcess.swift), over
/// libwebsockets.
@Suite(.serialized, .enabled(if: DaemonProcess.isAvailable, "needs the reactorhub binary (swift build --product reactorhub)"))
struct LiveDaemonTests {
    func unique(_ kind: String) -> String {
        "\(kind)/t\(UInt32.random(in: 0...UInt32.max))"
    }

    func connect(_ daemon: DaemonProcess, configure: (inout HubClientOptions) -> Void = { _ in }) async throws -> HubClient {
        var options = HubClientOptions()
        options.initialDelay = .milliseconds(50)
        options.maxDelay = .milliseconds(400)
        configure(&options)
        return try await HubClient.connect(daemon.url, options: options, logger: clientTestLogger)
    }

    @Test func theSeedCounterSequenceArrivesAsStatesAndPulses() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let hub = try await connect(daemon)
        let address = unique("counter")
        let counter = try await hub.join(address, state: CounterReactor.State.self, action: CounterReactor.Action.self)
        var states = counter.states(bufferingNewest: 64).makeAsyncIterator()
        let alerts = counter.pulse(\.$alertMessage)

        #expect(try await counter.send(.increase) == 0)
        var seen: [CounterReactor.State] = []
        while let state = await states.next() {
            seen.append(state)
            if state.$alertMessage.valueUpdatedCount == 1 { break }
        }
        #expect(seen.map(\.value) == [0, 0, 1, 1, 1])
        #expect(seen.map(\.isLoading) == [false, true, true, false, false])
        #expect(seen.map(\.alertMessage) == [nil, nil, nil, nil, "increased!"])
        #expect(counter.version == 3)

        #expect(try await counter.send(.decrease) == 3)
        var messages: [String?] = []
        for await message in alerts {
            messages.append(message)
            if messages.count == 2 { break }
        }
        #expect(messages == ["increased!", "decreased!"])
        #expect(counter.currentState.value == 0)
        #expect(counter.currentState.$alertMessage.valueUpdatedCount == 2)
        await hub.close()
    }

    @Test func theSeedCounterViewBindsToTheBridgeAsToALocalReactor() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let hub = try await connect(daemon)
        let remote = try await hub.join(unique("counter"), state: CounterReactor.State.self, action: CounterReactor.Action.self)

        let localView = CounterView<CounterReactor>()
        let local = ReactorRuntime(reactor: CounterReactor(delay: .milliseconds(50)))
        localView.bind(reactor: local)
        let remoteView = CounterView<RemoteReactorBridge<CounterReactor.State, CounterReactor.Action>>()
        let bridged = ReactorRuntime(reactor: RemoteReactorBridge(remote))
        remoteView.bind(reactor: bridged)

        for view in [localView.tapIncreaseButton, remoteView.tapIncreaseButton] { view() }
        #expect(await eventually { localView.shown.alerts.count == 1 && remoteView.shown.alerts.count == 1 })
        #expect(await eventually { localView.shown.spinner.last == false && remoteView.shown.spinner.last == false })
        let expected = (labels: ["0", "1"], spinner: [false, true, false], alerts: ["increased!"])
        #expect(localView.shown == expected)
        #expect(remoteView.shown == expected)
        #expect(bridged.currentState.value == 1)
        #expect(bridged.currentState.$alertMessage.valueUpdatedCount == 1)

        remoteView.tapDecreaseButton()
        #expect(await eventually { remoteView.shown.alerts == ["increased!", "decreased!"] })
        #expect(await eventually { remoteView.shown.labels == ["0", "1", "0"] })
        #expect(remote.currentState.value == 0)
        await hub.close()
    }

    @Test func twoClientsConvergeOnATodoListUnderRandomActions() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let address = unique("todo")
        let hubs = [try await connect(daemon), try await connect(daemon)]
        var lists: [RemoteReactor<TodoReactor.State, TodoReactor.Action>] = []
        for hub in hubs {
            lists.append(try await hub.join(address, state: TodoReactor.State.self, action: TodoReactor.Action.self))
        }
        let outcomes = try await withThrowingTaskGroup(of: (accepted: Int, refused: Int).self) { group in
            for list in lists {
                group.addTask {
                    var accepted = 0, refused = 0
                    for step in 0..<80 {
                        let items = list.currentState.items
                        let action: TodoReactor.Action
                        switch (step < 10 ? 0 : Int.random(in: 0..<6), items.randomElement()) {
                        case (1, let item?): action = .toggle(id: item.id)
                        case (2, let item?): action = .rename(id: item.id, title: "renamed \(step)")
                        case (3, let item?): action = .remove(id: item.id)
                        case (4, _) where items.count > 1: action = .move(from: Int.random(in: 0..<items.count), to: Int.random(in: 0..<items.count))
                        case (5, _) where step % 7 == 0: action = .clearCompleted
                        case (_, let item?) where step % 11 == 0: action = .toggle(id: item.id + "x")   // refused: no such id
                        default: action = .add(title: "item \(step)")
                        }
                        do {
                            try await list.send(action)
                            accepted += 1
                        } catch let error as HubClientError {
                            #expect(error.code == .invalidAction, "\(error)")
                            refused += 1
                        }
                    }
                    return (accepted, refused)
                }
            }
            var all: [(accepted: Int, refused: Int)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.allSatisfy { $0.accepted > 40 })
        // Every accepted action's patches reach both clients; a fresh client agrees.
        let fresh = try await connect(daemon)
        let third = try await fresh.join(address, state: TodoReactor.State.self, action: TodoReactor.Action.self)
        #expect(await eventually {
            lists.allSatisfy { $0.version == third.version && $0.currentState == third.currentState }
        })
        #expect(!third.currentState.items.isEmpty)
        for hub in hubs + [fresh] { await hub.close() }
    }

    @Test func refusalsSurfaceWithTheServersCode() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let hub = try await connect(daemon)
        let counter = try await hub.join(unique("counter"))
        do {
            try await counter.send("jump")
            Issue.record("sent")
        } catch {
            #expect(error.code == .unknownAction)
            #expect(error.message == "counter has no action 'jump'; actions: increase, decrease")
        }
        let todo = try await hub.join(unique("todo"), state: TodoReactor.State.self, action: TodoReactor.Action.self)
        do {
            try await todo.send(.toggle(id: "nope"))
            Issue.record("sent")
        } catch {
            #expect(error.code == .invalidAction)
            #expect(error.message.contains("no item with id 'nope'"))
        }
        do {
            _ = try await hub.join("nosuchkind/x")
            Issue.record("joined")
        } catch {
            #expect(error.code == .unknownReactor)
        }
        do {
            try await counter.send(["type": "increase", "by": 2])
            Issue.record("sent")
        } catch {
            #expect(error.code == .invalidAction)
        }
        await hub.close()
    }

    @Test func aDaemonKilledAndRestartedOnTheSamePortIsResnapshottedAndTheClientGoesOn() async throws {
        let first = try await DaemonProcess.start()
        let hub = try await connect(first)
        let statuses = hub.statusUpdates
        let counter = try await hub.join(unique("counter"), state: CounterReactor.State.self, action: CounterReactor.Action.self)
        try await counter.send(.increase)
        #expect(await eventually { counter.currentState.value == 1 && !counter.currentState.isLoading })
        let oldEpoch = counter.epoch

        first.kill()
        let second = try await first.restart()
        defer { second.kill() }
        var sawReconnecting = false
        for await status in statuses {
            if case .reconnecting = status { sawReconnecting = true }
            if case .open = status, sawReconnecting { break }
        }
        // Memory persistence: the restarted instance starts afresh, under a new epoch.
        #expect(await eventually { counter.epoch != oldEpoch })
        #expect(counter.currentState.value == 0)
        try await counter.send(.increase)
        #expect(await eventually { counter.currentState.value == 1 && !counter.currentState.isLoading })
        await hub.close()
    }

    @Test func aDaemonStoppedAndRestartedWithItsStateIsResumedInTheSameEpoch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rh-client-sqlite-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = #"{"persistence":{"kind":"sqlite","path":"\#(folder)/state.sqlite","flushMs":20},"reactors":{"counter":{"delayMs":50}}}"#
        let first = try await DaemonProcess.start(config: config)
        let hub = try await connect(first)
        let counter = try await hub.join(unique("counter"), state: CounterReactor.State.self, action: CounterReactor.Action.self)
        try await counter.send(.increase)
        #expect(await eventually { counter.currentState.value == 1 && !counter.currentState.isLoading })
        let (epoch, version) = (counter.epoch, counter.version)

        await first.stop()
        let second = try await first.restart()
        defer { second.kill() }
        #expect(await eventually { if case .open(let session) = hub.status { session != "" && hub.server != nil } else { false } })
        try await counter.send(.increase)
        #expect(await eventually { counter.currentState.value == 2 && !counter.currentState.isLoading })
        #expect(counter.epoch == epoch)
        #expect(counter.version == version + 3)
        await hub.close()
    }
}
