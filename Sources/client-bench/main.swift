import Foundation
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubClient
#if canImport(Glibc)
import Glibc
#endif

// client-bench: what the Swift client costs per patch, on its own (no network, no server):
// a 100-member `doc` is joined through an in-memory socket, then N patch frames (each a
// `replace` of one member's field, as a `doc set` makes) are handed over as prepared bytes;
// the time until the client holds version N is measured in process CPU time and wall time.
//
//   swift build -c release --product client-bench
//   taskset -c 0 .build/release/client-bench [PATCHES]
//
// Variants: the state held as JSON with nobody reading (the client's own cost: parse, the
// version check, RFC 6902 apply, publish), and with a reader decoding a typed state from
// `states` (latest only) as fast as it can.

struct Member: Codable, Sendable {
    var name: String
    var score: Int
    var tags: [String]
    var active: Bool
}

func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func text(_ value: JSONValue) -> [UInt8] {
    var writer = JSONWriter()
    writer.writeValue(value)
    return writer.bytes
}

let patches = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200_000 : 200_000
let snapshotState: JSONValue = {
    var document = JSONObject()
    for index in 0..<100 {
        document.updateValue(["name": .string("member \(index)"), "score": .int(index), "tags": ["a", "b", .string("t\(index)")], "active": true], forKey: "m\(index)")
    }
    return .object(document)
}()
print("client-bench: \(patches) patches on a 100-member doc (\(text(snapshotState).count) bytes of state)")

let frames: [[UInt8]] = (1...patches).map { version in
    let member = (version &* 37) % 100
    return Array(#"{"type":"patch","reactor":"doc/bench","version":\#(version),"patch":[{"op":"replace","path":"/m\#(member)/score","value":\#(version)}]}"#.utf8)
}
let frameBytes = frames.reduce(0) { $0 + $1.count }
print("  frames: \(frameBytes / patches) bytes each on average")

let logger: Logger = {
    var logger = Logger(label: "client-bench")
    logger.logLevel = .error
    return logger
}()

/// Who reads the states while the patches arrive.
enum Reader {
    /// Nobody: the client's own cost.
    case none
    /// A typed reader of `states`, which keeps the latest state only.
    case latest
    /// A typed reader of every state (`states(bufferingNewest: N)`): one decode per patch.
    case every
}

func run(_ name: String, reader kind: Reader) async throws {
    let socket = BenchSocket { connection, message in
        guard let join = try? JSONParser().parse(message), join["type"] == "join", let ref = join["ref"] else { return }
        connection.deliver(text(["type": "snapshot", "reactor": "doc/bench", "ref": ref, "epoch": "bench", "version": 0, "state": snapshotState]))
    }
    let connection = socket.connection
    var options = HubClientOptions()
    options.socket = socket
    async let connecting = HubClient.connect("ws://bench/ws", options: options, logger: logger)
    connection.deliver(Array(#"{"type":"hello","protocol":1,"server":"bench","session":"c1","reactors":{"doc":{"actions":{},"pulses":["event"]}}}"#.utf8))
    let hub = try await connecting
    let doc = try await hub.join("doc/bench")
    let reader: Task<Int, Never>? = kind == .none ? nil : Task.detached {
        let typed = try? await hub.join("doc/bench", state: [String: Member].self, action: JSONValue.self)
        var decoded = 0
        guard let typed else { return 0 }
        for await state in typed.states(bufferingNewest: kind == .every ? patches + 1 : 1) {
            decoded += 1
            if state["m0"]?.score == -1 { break }   // never: keeps `state` used
            if state["m\((patches &* 37) % 100)"]?.score == patches { break }
        }
        return decoded
    }
    try await Task.sleep(for: .milliseconds(50))

    let cpuStart = cpuSeconds()
    let wallStart = ContinuousClock.now
    for frame in frames {
        connection.deliver(frame)
    }
    while doc.version < patches {
        try await Task.sleep(for: .microseconds(500))
    }
    let decoded = await reader?.value
    let wall = ContinuousClock.now - wallStart
    let cpu = cpuSeconds() - cpuStart
    let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    let perCPU = Double(patches) / cpu
    let perWall = Double(patches) / wallSeconds
    print("  \(name.padding(toLength: 46, withPad: " ", startingAt: 0)) \(Int(perCPU)) patches/s of CPU (\(String(format: "%.2f", cpu * 1e6 / Double(patches))) µs each), \(Int(perWall)) /s wall\(decoded.map { "; \($0) states decoded" } ?? "")")
    await hub.close()
}

try await run("JSON state, no reader", reader: .none)
try await run("JSON state, no reader (again)", reader: .none)
try await run("a typed reader of states (latest only)", reader: .latest)
try await run("a typed reader of every state", reader: .every)

// Decoding the typed state alone (no client), in CPU time, for comparison.
do {
    let decoder = JSONValueDecoder()
    var total = 0
    let start = cpuSeconds()
    for _ in 0..<2000 {
        total &+= try decoder.decode([String: Member].self, from: snapshotState).count
    }
    let each = (cpuSeconds() - start) / 2000
    print("  decoding the typed 100-member state alone (JSONValueDecoder): \(String(format: "%.1f", each * 1e6)) µs of CPU each (\(total / 2000) members)")
}
