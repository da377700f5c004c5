import Glibc

/// `idle`: N connections, each joined to one of R reactors (`doc/idle-…-K`, K = i mod R),
/// opened `batch` at a time; reports the time to connect (and join) them all and the
/// server's resident memory before and after, per connection.
final class Idle: Workload {
    struct Settings {
        var endpoint: Endpoint
        var proto: Fanout.Wire
        var connections: Int
        var reactors: Int
        var reactorPrefix: String
        var batch: Int
        var hold: Double
        var server: WatchedProcess?
        var label: String
        var verbose: Bool
    }

    let settings: Settings
    let loop: Loop<Idle>
    private var ready: [Bool]
    private var readyCount = 0
    private var closedCount = 0
    private var firstClose: String?
    private var nextToConnect = 0
    private var connecting = 0
    private var joins: [[UInt8]] = []
    /// With `--token-message`: the `auth` message of each token; the join follows `authed`.
    private var authMessages: [[UInt8]] = []

    init(settings: Settings) {
        self.settings = settings
        loop = Loop(endpoint: settings.endpoint, count: settings.connections)
        ready = Array(repeating: false, count: settings.connections)
        loop.workload = self
        for reactor in 0..<settings.reactors {
            joins.append(Array((#"{"type":"join","reactor":""# + settings.reactorPrefix + String(reactor) + #""}"#).utf8))
        }
        if settings.endpoint.tokenInMessage {
            authMessages = settings.endpoint.tokens.map { Array((#"{"type":"auth","token":""# + $0 + #"","ref":1}"#).utf8) }
        }
    }

    func run() -> String {
        let limit = raiseOpenFileLimit()
        if limit < settings.connections + 64 {
            printError("warning: open-file limit \(limit) is below \(settings.connections + 64); raise `ulimit -n`")
        }
        let rssBefore = settings.server?.residentKiB()
        let serverCPUBefore = settings.server?.cpuSeconds()
        let clientCPUBefore = processCPUSeconds()
        let machineBefore = machineCPUSeconds()
        let start = monotonicNanos()
        connectMore()
        var connectedAt: UInt64 = 0
        while true {
            loop.turn(timeoutMs: 20)
            let now = monotonicNanos()
            if readyCount + closedCount == settings.connections {
                connectedAt = now
                break
            }
            if now - start > 120_000_000_000 {
                printError("[\(settings.label)] gave up after 120 s: \(readyCount) ready, \(closedCount) closed")
                connectedAt = now
                break
            }
        }
        let connectSeconds = Double(connectedAt - start) / 1e9
        // CPU while connecting: what a connection costs the server, less disturbed by a busy
        // machine than the rate (which waits for whatever else runs).
        var serverCPU: Double?
        if let before = serverCPUBefore, let after = settings.server?.cpuSeconds() { serverCPU = after - before }
        let clientCPU = processCPUSeconds() - clientCPUBefore
        let machineBusy = machineCPUSeconds().busy - machineBefore.busy
        let otherCPU = max(0, machineBusy - clientCPU - (serverCPU ?? 0))
        if settings.verbose {
            printError("[\(settings.label)] \(readyCount) connections joined in \(fmt(connectSeconds, 3)) s; holding \(fmt(settings.hold)) s")
        }
        let holdUntil = monotonicNanos() + UInt64(settings.hold * 1e9)
        while monotonicNanos() < holdUntil {
            loop.turn(timeoutMs: 50)
        }
        let rssAfter = settings.server?.residentKiB()
        let peak = settings.server?.peakResidentKiB()
        let threads = settings.server?.threads()
        let stillOpen = loop.connections.filter { $0.phase == .open }.count
        loop.closeAll()

        var perConnection: Double?
        if let rssBefore, let rssAfter, readyCount > 0 {
            perConnection = Double(rssAfter - rssBefore) * 1024 / Double(readyCount)
        }
        var text = "\(settings.label): idle, \(readyCount)/\(settings.connections) connections "
        text += settings.proto == .reactorhub ? "joined to \(settings.reactors) reactors" : "open"
        text += " in \(fmt(connectSeconds, 3)) s (\(fmt(Double(readyCount) / max(connectSeconds, 1e-9))) /s), \(stillOpen) still open after \(fmt(settings.hold)) s"
        if let rssBefore, let rssAfter {
            text += "\n  server RSS \(fmt(Double(rssBefore) / 1024, 1)) MiB before, \(fmt(Double(rssAfter) / 1024, 1)) MiB after"
            text += " (peak \(fmt(Double(peak ?? 0) / 1024, 1)) MiB, \(threads ?? 0) threads): \(fmt(perConnection ?? 0)) bytes per connection"
        }
        if let serverCPU, readyCount > 0 {
            text += "\n  CPU while connecting: server \(fmt(serverCPU, 3)) s (\(fmt(serverCPU * 1e6 / Double(readyCount), 1)) µs per connection)"
            text += ", client \(fmt(clientCPU, 3)) s, rest of the machine \(fmt(otherCPU, 3)) s"
        }
        if closedCount > 0 {
            text += "\n  \(closedCount) connections failed or closed; first: \(firstClose ?? "-")"
        }
        var fields = [
            "\"label\":\(jsonString(settings.label))", "\"mode\":\"idle\"",
            "\"connections\":\(settings.connections)", "\"joined\":\(readyCount)", "\"open\":\(stillOpen)",
            "\"reactors\":\(settings.reactors)", "\"connectSeconds\":\(fmt(connectSeconds, 3))",
            "\"failed\":\(closedCount)",
            "\"clientCPUSeconds\":\(fmt(clientCPU, 3))", "\"otherCPUSeconds\":\(fmt(otherCPU, 3))",
        ]
        if let serverCPU { fields.append("\"serverCPUSeconds\":\(fmt(serverCPU, 4))") }
        if let rssBefore { fields.append("\"rssBeforeKiB\":\(rssBefore)") }
        if let rssAfter { fields.append("\"rssAfterKiB\":\(rssAfter)") }
        if let peak { fields.append("\"rssPeakKiB\":\(peak)") }
        if let perConnection { fields.append("\"bytesPerConnection\":\(fmt(perConnection))") }
        if let firstClose { fields.append("\"firstClose\":\(jsonString(firstClose))") }
        print(text)
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func connectMore() {
        while connecting < settings.batch && nextToConnect < settings.connections {
            connecting += 1
            loop.connect(loop.connections[nextToConnect])
            nextToConnect += 1
        }
    }

    private func markReady(_ connection: Connection) {
        guard !ready[connection.id] else { return }
        ready[connection.id] = true
        readyCount += 1
        connecting -= 1
        connectMore()
    }

    func opened(_ connection: Connection) {
        switch settings.proto {
        case .reactorhub where !authMessages.isEmpty:
            authMessages[connection.id % authMessages.count].withUnsafeBytes { loop.sendText(connection, $0) }
        case .reactorhub:
            join(connection)
        case .mirror:
            markReady(connection)
        }
    }

    private func join(_ connection: Connection) {
        joins[connection.id % settings.reactors].withUnsafeBytes { loop.sendText(connection, $0) }
    }

    func received(_ connection: Connection, _ payload: UnsafeMutablePointer<UInt8>, _ count: Int, now: UInt64) {
        guard settings.proto == .reactorhub else { return }
        switch Scan.messageType(payload, count) {
        case .authed:
            join(connection)
        case .snapshot:
            markReady(connection)
        case .error:
            if firstClose == nil {
                firstClose = String(decoding: UnsafeBufferPointer(start: payload, count: min(count, 300)), as: UTF8.self)
            }
        default:
            break
        }
    }

    func closed(_ connection: Connection, reason: String) {
        if !ready[connection.id] {
            connecting -= 1
            closedCount += 1
            connectMore()
        }
        if firstClose == nil { firstClose = "connection \(connection.id): \(reason)" }
    }

    func timerFired(_ tag: Int, expirations: UInt64) {}
}
