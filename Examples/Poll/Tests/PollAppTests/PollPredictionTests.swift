import Foundation
import PollApp
import PollKit
import Reactor
import ReactorHubClient
import ReactorHubLogging
import Synchronization
import Testing

/// The app and the server share `PollKit`: the app predicts with the server's own reactor.
@Suite struct PollPredictionTests {
    @Test func theSharedReactorPredictsTheImmediatePartAndNeverAnnounces() throws {
        let calls = Calls()
        let predictor = ImmediatePredictor(reactor: PollReactor(announcer: PollAnnouncer { _, _, _ in
            calls.record()
            return "never"
        }))
        var state = try predictor.predict(.open(question: "Lunch?", options: ["Tea", "Coffee"]), from: PollReactor.State())
        state = try predictor.predict(.vote(option: 1, voter: "ann"), from: state)
        #expect((state.isOpen, state.votes, state.voters) == (true, [0, 1], ["ann"]))
        #expect(throws: ActionRefusal("ann has voted already")) { try predictor.predict(.vote(option: 0, voter: "ann"), from: state) }
        state = try predictor.predict(.close, from: state)
        #expect((state.isOpen, state.isTallying, state.announcement) == (true, true, nil))   // setTallying(true) only
        #expect(calls.count == 0)
    }

    @Test(.enabled(if: PollServer.binary != nil, "needs poll-server (swift build in Examples/Poll)"))
    func actionsShowBeforeTheServerAnswersAndTheServersStateReplacesThem() async throws {
        let server = try PollServer()
        defer { server.stop() }
        let hub = try await HubClient.connect(server.url, logger: Logger(label: "poll-test"))
        let poll = try await PollClient.join(hub, poll: "lunch-\(UInt32.random(in: 0...UInt32.max))")
        let revisions = poll.revisions(bufferingNewest: 64)
        let announcements = poll.pulse(\.$announcement)

        var acks: [ActionAck] = []
        acks.append(try await poll.dispatch(.open(question: "Lunch?", options: ["Tea", "Coffee"])))
        acks.append(try await poll.dispatch(.vote(option: 0, voter: "ann")))
        acks.append(try await poll.dispatch(.close))
        for await message in announcements {
            #expect(message == "Lunch?: Tea wins with 1 of 1 votes")
            break
        }
        #expect(poll.pendingCount == 0)
        #expect(poll.revision.state == poll.revision.confirmedState)
        #expect((poll.state.isOpen, poll.state.votes) == (false, [1, 0]))

        // Each action showed first as a prediction, on a version before the one that applied it.
        var predicted: [(version: Int, isOpen: Bool?, votes: [Int?], isTallying: Bool?)] = []
        var iterator = revisions.makeAsyncIterator()
        while revisions.buffered > 0, let revision = await iterator.next() {
            if revision.cause == .prediction, revision.isPredicted {
                let state = revision.state
                let votes = (state["votes"]?.arrayValue ?? []).map(\.intValue)
                predicted.append((revision.version, state["isOpen"]?.boolValue, votes, state["isTallying"]?.boolValue))
            }
        }
        #expect(predicted.count == 3)
        #expect(zip(predicted, acks).allSatisfy { $0.version < $1.applied })
        #expect(acks.map(\.applied) == [1, 2, 3])
        #expect(predicted.map(\.isOpen) == [true, true, true])
        #expect(predicted.map(\.votes) == [[0, 0], [1, 0], [1, 0]])
        #expect(predicted.map(\.isTallying) == [false, false, true])
        await hub.close()
    }

    @Test(.enabled(if: PollServer.binary != nil, "needs poll-server (swift build in Examples/Poll)"))
    func whatOnlyTheServerKnowsIsRolledBack() async throws {
        // The server allows 6 options (config/poll.json); the app's reactor has the default 8.
        let server = try PollServer()
        defer { server.stop() }
        let hub = try await HubClient.connect(server.url, logger: Logger(label: "poll-test"))
        let poll = try await PollClient.join(hub, poll: "big-\(UInt32.random(in: 0...UInt32.max))")
        let options = (1...7).map { "o\($0)" }
        let refused = Task { () -> (HubClientError?, Bool) in
            do throws(HubClientError) {
                try await poll.send(.open(question: "Too many?", options: options))
                return (nil, true)
            } catch {
                return (error, poll.state.isOpen)
            }
        }
        let (error, openWhenRefused) = await refused.value
        #expect(error?.message == "a poll has 2 to 6 options (reactors.poll.maxOptions), got 7")
        #expect(!openWhenRefused)
        #expect(poll.pendingCount == 0)
        #expect(poll.revision.state == poll.revision.confirmedState)
        await hub.close()
    }
}

final class Calls: Sendable {
    private let counter = Mutex(0)
    func record() { counter.withLock { $0 += 1 } }
    var count: Int { counter.withLock { $0 } }
}

/// `poll-server` from this package's build, on an ephemeral port, as Tests/e2e starts it.
final class PollServer: Sendable {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$REACTORHUB_POLL_BINARY`, else this package's debug build (its own `.build`, or the
    /// repository's when built with `--scratch-path .build` from the root as scripts/test.sh does).
    static var binary: String? {
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment["REACTORHUB_POLL_BINARY"],
            package.appendingPathComponent(".build/debug/poll-server").path,
            package.appendingPathComponent("../../.build/debug/poll-server").standardized.path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let process: Process
    let port: Int

    init() throws {
        guard let binary = Self.binary else { throw PollServerError(message: "no poll-server binary") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--config", "config/poll.json", "--port", "0"]
        process.currentDirectoryURL = Self.package
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line says where it listens: "listening on http://127.0.0.1:PORT".
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == 10 { break }
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on http://"), let port = text.split(separator: ":").last.flatMap({ Int($0) }) else {
            process.terminate()
            throw PollServerError(message: "poll-server did not start: \(text)")
        }
        self.process = process
        self.port = port
    }

    var url: String { "ws://127.0.0.1:\(port)/ws" }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

struct PollServerError: Error {
    let message: String
}
