import Glibc

/// Writes one line to standard error.
func printError(_ line: String) {
    var text = line
    text += "\n"
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { break }
        offset += written
    }
}

/// A JSON string literal.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// The outcome of one `fanout` or `raw` run.
struct FanoutReport {
    var label: String
    var mode: String
    var subscribers: Int
    var senders: Int
    /// Reactors (mirror rooms) the subscribers are spread over.
    var reactors: Int
    /// Sending connections: one per sender and reactor it sends to.
    var links: Int
    var pace: Fanout.Pace
    var size: Int
    var seconds: Double
    var connectSeconds: Double
    var actions: Int
    var updates: Int
    var frames: Int
    var bytes: Int
    /// Frame bytes as they came over the subscribers' sockets.
    var wireBytes: Int
    var senderFrames: Int
    /// The actions asked for acks (`--acks`).
    var acksExpected: Bool
    /// Acks the senders read during the measurement.
    var acks: Int
    /// Acks whose ref was not the next one a sender waited for.
    var ackMismatches: Int
    var delivery: LatencySummary
    var last: LatencySummary
    var gaps: Int
    var reorders: Int
    var lost: Int
    var resyncs: Int
    var incomplete: Int
    var serverErrors: Int
    var firstServerError: String?
    var closed: Int
    var firstClose: String?
    var timestampMismatches: Int
    /// Actions of another reactor that reached a subscriber (a mirror room leaking).
    var crossed: Int
    var skipped: Int
    var clientCPU: Double
    var serverCPU: Double?
    /// The server's heap calls during the measurement (bench/malloc-count.so).
    var serverMallocs: MallocCounter.Counts?
    /// Busy CPU seconds of the whole machine (all cores) during the measurement.
    var machineCPU: Double
    var aborted: String?
    /// With a sweep: every try, `{"window":…,"updatesPerSecond":…,"ordered":…}`.
    var tries: [String] = []

    /// CPU seconds used by neither the client nor the server: other load on the machine.
    var otherCPU: Double { max(0, machineCPU - clientCPU - (serverCPU ?? 0)) }

    /// Updates applied per second.
    var updatesPerSecond: Double { rate(updates) }

    private func rate(_ count: Int) -> Double { seconds > 0 ? Double(count) / seconds : 0 }

    var ordered: Bool {
        gaps == 0 && reorders == 0 && lost == 0 && incomplete == 0 && closed == 0 && aborted == nil
            && timestampMismatches == 0 && serverErrors == 0 && ackMismatches == 0 && crossed == 0
    }

    private var paceText: String {
        switch pace {
        case .rate(let value): return "rate \(fmt(value)) actions/s"
        case .window(let value): return "window \(value) in flight per sender" + (links > senders ? " (over its reactors)" : "")
        }
    }

    private var paceJSON: String {
        switch pace {
        case .rate(let value): return "\"rate\":\(fmt(value))"
        case .window(let value): return "\"window\":\(value)"
        }
    }

    /// One line: the try of a sweep.
    var brief: String {
        "  \(paceText): \(fmt(rate(updates))) updates/s, \(fmt(rate(frames))) frames/s, last-subscriber p99 \(ms(last.p99)) ms, client \(fmt(seconds > 0 ? clientCPU / seconds * 100 : 0)) %, server \(fmt(seconds > 0 ? (serverCPU ?? 0) / seconds * 100 : 0)) %, other \(fmt(seconds > 0 ? otherCPU / seconds * 100 : 0)) %\(ordered ? "" : " (PROBLEMS)")"
    }

    var tryJSON: String {
        "{\(paceJSON),\"updatesPerSecond\":\(fmt(rate(updates))),\"framesPerSecond\":\(fmt(rate(frames))),\"ordered\":\(ordered)}"
    }

    var text: String {
        var lines: [String] = []
        if reactors == 1 {
            lines.append("\(label): \(mode), \(subscribers) subscribers, \(senders) sender(s), \(paceText), ~\(size)-byte actions, \(fmt(seconds, 2)) s measured")
        } else {
            lines.append("\(label): \(mode), \(reactors) reactors × \(subscribers / reactors) subscribers (\(subscribers) in all), \(senders) sender(s) on \(links) sending connections, \(paceText), ~\(size)-byte actions, \(fmt(seconds, 2)) s measured; figures summed over the reactors")
        }
        lines.append("  actions sent       \(fmt(rate(actions))) /s")
        lines.append("  updates applied    \(fmt(rate(updates))) /s (one version reaching one subscriber)")
        lines.append("  frames delivered   \(fmt(rate(frames))) /s to subscribers (+\(fmt(rate(senderFrames))) /s to senders), \(fmt(rate(bytes) / 1e6, 2)) MB/s, \(fmt(frames > 0 ? Double(updates) / Double(frames) : 0, 2)) updates/frame")
        lines.append("  on the wire        \(fmt(updates > 0 ? Double(wireBytes) / Double(updates) : 0, 1)) frame bytes per update (\(fmt(updates > 0 ? Double(bytes) / Double(updates) : 0, 1)) payload bytes uncompressed)")
        if acksExpected { lines.append("  acks read          \(fmt(rate(acks))) /s (\(ackMismatches) out of order)") }
        lines.append("  latency, send to each subscriber:  \(delivery.text)")
        lines.append("  latency, send to last subscriber\(reactors > 1 ? " of the action's reactor" : ""):  \(last.text)")
        var cpu = "  CPU: client \(fmt(clientCPU, 2)) s (\(fmt(seconds > 0 ? clientCPU / seconds * 100 : 0)) % of a core)"
        if let serverCPU {
            cpu += ", server \(fmt(serverCPU, 2)) s (\(fmt(seconds > 0 ? serverCPU / seconds * 100 : 0)) %), "
            cpu += "\(fmt(frames + senderFrames > 0 ? serverCPU * 1e6 / Double(frames + senderFrames) : 0, 2)) µs server CPU per frame, "
            cpu += "\(fmt(actions > 0 ? serverCPU * 1e6 / Double(actions) : 0, 2)) µs per action"
        }
        cpu += "; rest of the machine \(fmt(otherCPU, 2)) s (\(fmt(seconds > 0 ? otherCPU / seconds * 100 : 0)) % of a core)"
        lines.append(cpu)
        if let serverMallocs, actions > 0 {
            let perAction = { (count: UInt64) in fmt(Double(count) / Double(actions), 2) }
            lines.append("  server heap per action: \(perAction(serverMallocs.allocations)) allocations, \(perAction(serverMallocs.reallocations)) reallocations, \(perAction(serverMallocs.frees)) frees, \(perAction(serverMallocs.bytes)) bytes")
        }
        if reactors == 1 {
            lines.append("  check: \(ordered ? "every subscriber saw every version in order" : "PROBLEMS") (gaps \(gaps), reorders \(reorders), lost \(lost), resync snapshots \(resyncs), incomplete \(incomplete), server errors \(serverErrors), closed \(closed), timestamp mismatches \(timestampMismatches), skipped sends \(skipped))")
        } else {
            lines.append("  check: \(ordered ? "every subscriber saw every action of its reactor in order, none of another" : "PROBLEMS") (gaps \(gaps), reorders \(reorders), lost \(lost), resync snapshots \(resyncs), incomplete \(incomplete), server errors \(serverErrors), closed \(closed), timestamp mismatches \(timestampMismatches), other reactor's actions \(crossed), skipped sends \(skipped))")
        }
        if let firstServerError { lines.append("  first server error: \(firstServerError)") }
        if let firstClose { lines.append("  first close: \(firstClose)") }
        if let aborted { lines.append("  ABORTED: \(aborted)") }
        return lines.joined(separator: "\n")
    }

    var json: String {
        var fields: [String] = [
            "\"label\":\(jsonString(label))", "\"mode\":\(jsonString(mode))",
            "\"subscribers\":\(subscribers)", "\"senders\":\(senders)", "\"reactors\":\(reactors)", paceJSON, "\"size\":\(size)",
            "\"seconds\":\(fmt(seconds, 3))", "\"connectSeconds\":\(fmt(connectSeconds, 3))",
            "\"actionsPerSecond\":\(fmt(rate(actions)))", "\"updatesPerSecond\":\(fmt(rate(updates)))",
            "\"framesPerSecond\":\(fmt(rate(frames)))", "\"senderFramesPerSecond\":\(fmt(rate(senderFrames)))",
            "\"bytesPerSecond\":\(fmt(rate(bytes)))", "\"wireBytesPerSecond\":\(fmt(rate(wireBytes)))",
            "\"wireBytesPerUpdate\":\(fmt(updates > 0 ? Double(wireBytes) / Double(updates) : 0, 1))",
            "\"delivery\":\(delivery.json)", "\"last\":\(last.json)",
            "\"gaps\":\(gaps)", "\"reorders\":\(reorders)", "\"lost\":\(lost)", "\"resyncs\":\(resyncs)",
            "\"incomplete\":\(incomplete)", "\"serverErrors\":\(serverErrors)", "\"closed\":\(closed)",
            "\"timestampMismatches\":\(timestampMismatches)", "\"skipped\":\(skipped)",
        ]
        if reactors > 1 {
            fields.append("\"sendingConnections\":\(links)")
            fields.append("\"crossed\":\(crossed)")
        }
        fields += [
            "\"ordered\":\(ordered)",
            "\"clientCPUSeconds\":\(fmt(clientCPU, 3))",
        ]
        if let serverCPU {
            fields.append("\"serverCPUSeconds\":\(fmt(serverCPU, 3))")
            fields.append("\"serverCPUMicrosPerAction\":\(fmt(actions > 0 ? serverCPU * 1e6 / Double(actions) : 0, 3))")
        }
        if acksExpected { fields.append("\"acksPerSecond\":\(fmt(rate(acks)))"); fields.append("\"ackMismatches\":\(ackMismatches)") }
        if let serverMallocs, actions > 0 {
            fields.append("\"serverAllocationsPerAction\":\(fmt(Double(serverMallocs.allocations) / Double(actions), 3))")
            fields.append("\"serverReallocationsPerAction\":\(fmt(Double(serverMallocs.reallocations) / Double(actions), 3))")
            fields.append("\"serverFreesPerAction\":\(fmt(Double(serverMallocs.frees) / Double(actions), 3))")
            fields.append("\"serverHeapBytesPerAction\":\(fmt(Double(serverMallocs.bytes) / Double(actions), 1))")
        }
        fields.append("\"otherCPUSeconds\":\(fmt(otherCPU, 3))")
        if !tries.isEmpty { fields.append("\"tries\":[" + tries.joined(separator: ",") + "]") }
        if let firstServerError { fields.append("\"firstServerError\":\(jsonString(firstServerError))") }
        if let firstClose { fields.append("\"firstClose\":\(jsonString(firstClose))") }
        if let aborted { fields.append("\"aborted\":\(jsonString(aborted))") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
