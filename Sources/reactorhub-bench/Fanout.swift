import Glibc

/// `fanout` and `raw`: N subscribers and S senders on one reactor (or one mirror).
///
/// Every action is a doc `set` of `/sK` (K = the sender) to `{"t":NANOS,"seq":N,"pad":…}`;
/// against a mirror server the same text is sent and echoed to everyone. Subscribers
/// read the timestamps back out of the patches (or echoes), so latency is measured from
/// the moment the sender wrote the action to the moment each subscriber read it.
///
/// An action is *complete* once every subscriber holds it (its version, or a later one
/// that covers it: a multi-version patch with `base`, or a snapshot). With `--window W`
/// each sender keeps at most W incomplete actions in flight: the saturation throughput
/// without unbounded queues. With `--rate R` the senders send R actions per second
/// together, on a timer, whatever happens.
final class Fanout: Workload {
    enum Wire { case reactorhub, mirror }
    enum Pace { case rate(Double), window(Int) }
    enum Phase { case connecting, warmup, measuring, draining, done }

    struct Settings {
        var endpoint: Endpoint
        /// Subscriber `i` connects to `subscriberEndpoints[i % count]` (nodes of a cluster);
        /// empty: `endpoint`.
        var subscriberEndpoints: [Endpoint] = []
        /// Where the senders connect; nil: `endpoint`.
        var senderEndpoint: Endpoint?
        var proto: Wire
        var subscribers: Int
        var senders: Int
        var pace: Pace
        var warmup: Double
        var duration: Double
        var size: Int
        /// Each action carries `"ref":SEQ`, so the daemon answers every one with an `ack`.
        var acks: Bool = false
        /// The counter file of bench/malloc-count.so loaded into the server, read when the
        /// server's CPU is: heap allocations per action.
        var mallocCounter: MallocCounter?
        var reactor: String
        var batch: Int
        /// Microseconds between the starts of two event-loop turns (0: none).
        var turnPauseMicros: Int
        /// Prints updates and actions per 100 ms of the measurement (to find stalls).
        var timeline: Bool
        var server: WatchedProcess?
        var label: String
        var verbose: Bool
    }

    static let ring = 1 << 16

    let settings: Settings
    let loop: Loop<Fanout>
    let subscriberCount: Int
    let senderCount: Int
    private(set) var phase = Phase.connecting

    // Subscribers
    private var held: [Int]
    private var ready: [Bool]
    private var readyCount = 0
    private var nextToConnect = 0
    private var connecting = 0
    private let lastSeq: UnsafeMutablePointer<Int>

    // Senders
    private var sent: [Int]
    private var completed: [Int]
    private let sendTimes: UnsafeMutablePointer<UInt64>
    private let counts: UnsafeMutablePointer<Int32>
    private var prefixes: [[UInt8]] = []
    private var suffix: [UInt8] = []
    private var message: [UInt8] = []
    private var nextSender = 0
    private var messageSize = 0

    // Time
    private var startedConnecting: UInt64 = 0
    private var connectedAt: UInt64 = 0
    private var measureStart: UInt64 = .max
    private var measureEnd: UInt64 = .max
    private var lastProgress: UInt64 = 0
    private var clientCPUStart = 0.0
    private var clientCPU = 0.0
    private var serverCPUStart: Double?
    private var serverCPU: Double?
    private var serverMallocsStart: MallocCounter.Counts?
    private var serverMallocs: MallocCounter.Counts?
    private var machineStart = (busy: 0.0, total: 0.0)
    private var machineBusy = 0.0

    // Counters (measurement window unless said otherwise)
    private var updates = 0
    private var frames = 0
    private var bytes = 0
    private var senderFrames = 0
    private var acks = 0
    private var ackMismatches = 0
    private var nextAck: [Int] = []
    private var actionsInWindow = 0
    private var delivery = LatencyHistogram()
    private var last = LatencyHistogram()
    private var gaps = 0
    private var reorders = 0
    private var lost = 0
    private var resyncs = 0
    private var serverErrors = 0
    private var firstServerError: String?
    private var closedConnections = 0
    private var firstClose: String?
    private var timestampMismatches = 0
    private var skipped = 0
    private var stalled = false
    private var aborted: String?
    private var samples: [OpSample] = []
    private var timelineUpdates: [Int] = []
    private var timelineActions: [Int] = []

    init(settings: Settings) {
        self.settings = settings
        subscriberCount = settings.subscribers
        senderCount = settings.senders
        let total = settings.subscribers + settings.senders
        let spread = settings.subscriberEndpoints.isEmpty ? [settings.endpoint] : settings.subscriberEndpoints
        let subscribers = settings.subscribers
        loop = Loop(endpoints: spread + [settings.senderEndpoint ?? settings.endpoint], count: total) { index in
            index < subscribers ? index % spread.count : spread.count
        }
        held = Array(repeating: 0, count: subscriberCount)
        ready = Array(repeating: false, count: total)
        lastSeq = .allocate(capacity: subscriberCount * senderCount)
        lastSeq.initialize(repeating: -1, count: subscriberCount * senderCount)
        sent = Array(repeating: 0, count: senderCount)
        completed = Array(repeating: 0, count: senderCount)
        nextAck = Array(repeating: 0, count: senderCount)
        sendTimes = .allocate(capacity: senderCount * Self.ring)
        sendTimes.initialize(repeating: 0, count: senderCount * Self.ring)
        counts = .allocate(capacity: senderCount * Self.ring)
        counts.initialize(repeating: 0, count: senderCount * Self.ring)
        loop.workload = self
        buildTemplates()
    }

    deinit {
        lastSeq.deallocate()
        sendTimes.deallocate()
        counts.deallocate()
        delivery.release()
        last.release()
    }

    /// `{"type":"action","reactor":R,"action":{"type":"set","path":"/sK","value":{"t":` + T
    /// + `,"seq":` + N + `,"pad":"xxx…"}}` + (with acks `,"ref":N`) + `}`, padded to about
    /// `size` bytes.
    private func buildTemplates() {
        for sender in 0..<senderCount {
            let text = #"{"type":"action","reactor":""# + settings.reactor
                + #"","action":{"type":"set","path":"/s"# + String(sender) + #"","value":{"t":"#
            prefixes.append(Array(text.utf8))
        }
        let fixed = prefixes[0].count + String(monotonicNanos()).count + #","seq":"#.count + 4 + #","pad":""#.count + #""}}}"#.count
        let pad = String(repeating: "x", count: max(1, settings.size - fixed))
        suffix = Array((#","pad":""# + pad + #""}}"#).utf8)
    }

    // MARK: Running

    /// Connects everyone, warms up, measures, drains; returns the report.
    func run() -> FanoutReport {
        startedConnecting = monotonicNanos()
        lastProgress = startedConnecting
        connectMore()
        let pause = UInt64(settings.turnPauseMicros) * 1000
        var turnStarted = monotonicNanos()
        while phase != .done {
            loop.turn(timeoutMs: phase == .connecting ? 20 : 2)
            var now = monotonicNanos()
            advance(now: now)
            if pause > 0 && phase != .connecting {
                // Let frames gather in the sockets so that one read takes many of them:
                // fewer system calls and context switches per frame for the client.
                if now < turnStarted + pause {
                    var spec = timespec(tv_sec: 0, tv_nsec: Int(turnStarted + pause - now))
                    nanosleep(&spec, nil)
                    now = monotonicNanos()
                }
            }
            turnStarted = now
        }
        loop.closeAll()
        return report()
    }

    private func connectMore() {
        let total = subscriberCount + senderCount
        while connecting < settings.batch && nextToConnect < total {
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

    private func advance(now: UInt64) {
        switch phase {
        case .connecting:
            if readyCount == subscriberCount + senderCount {
                connectedAt = now
                phase = .warmup
                measureStart = now + UInt64(settings.warmup * 1e9)
                measureEnd = measureStart + UInt64(settings.duration * 1e9)
                lastProgress = now
                if case .rate(let rate) = settings.pace {
                    loop.addTimer(tag: 1, periodNanos: UInt64(max(1_000, 1e9 / rate)))
                }
                log("connected \(subscriberCount) subscribers and \(senderCount) senders in \(ms(Double(now - startedConnecting) / 1000)) ms")
            } else if aborted == nil, now - startedConnecting > 60_000_000_000 {
                abort("could not connect everyone in 60 s (\(readyCount) ready, \(loop.failures) failed: \(loop.firstFailure ?? "-"))")
            } else if aborted != nil {
                phase = .done
            }
        case .warmup:
            refill(now: now)
            if now >= measureStart {
                phase = .measuring
                clientCPUStart = processCPUSeconds()
                serverCPUStart = settings.server?.cpuSeconds()
                serverMallocsStart = settings.mallocCounter?.read()
                machineStart = machineCPUSeconds()
            }
        case .measuring:
            refill(now: now)
            if now >= measureEnd {
                phase = .draining
                stopCPUClocks()
                loop.removeTimers()
            }
        case .draining:
            let drained = (0..<senderCount).allSatisfy { completed[$0] == sent[$0] }
            if drained || now - measureEnd > 3_000_000_000 || aborted != nil {
                phase = .done
            }
        case .done:
            break
        }
        if aborted != nil && phase != .draining { phase = .done }
        if case .window = settings.pace, phase == .warmup || phase == .measuring, now - lastProgress > 5_000_000_000 {
            stalled = true
            abort("no action completed for 5 s (in flight: \((0..<senderCount).map { sent[$0] - completed[$0] }))")
        }
    }

    private func abort(_ reason: String) {
        if aborted == nil {
            aborted = reason
            log("aborting: \(reason)")
        }
        if phase == .measuring {
            stopCPUClocks()
            measureEnd = monotonicNanos()
        }
        phase = .done
    }

    private func stopCPUClocks() {
        clientCPU = processCPUSeconds() - clientCPUStart
        if let start = serverCPUStart, let end = settings.server?.cpuSeconds() { serverCPU = end - start }
        if let start = serverMallocsStart, let end = settings.mallocCounter?.read() { serverMallocs = end - start }
        machineBusy = machineCPUSeconds().busy - machineStart.busy
    }

    private func refill(now: UInt64) {
        guard case .window(let window) = settings.pace else { return }
        for sender in 0..<senderCount {
            while sent[sender] - completed[sender] < window {
                if !send(from: sender) { break }
            }
        }
    }

    func timerFired(_ tag: Int, expirations: UInt64) {
        guard phase == .warmup || phase == .measuring else { return }
        for _ in 0..<expirations {
            if !send(from: nextSender) { skipped += 1 }
            nextSender = (nextSender + 1) % senderCount
        }
    }

    @discardableResult
    private func send(from sender: Int) -> Bool {
        let seq = sent[sender]
        guard seq - completed[sender] < Self.ring - 1 else { return false }
        let connection = loop.connections[subscriberCount + sender]
        guard connection.phase == .open else { return false }
        message.removeAll(keepingCapacity: true)
        message.append(contentsOf: prefixes[sender])
        let t = monotonicNanos()
        appendDecimal(Int(t), to: &message)
        message.append(contentsOf: #","seq":"#.utf8)
        appendDecimal(seq, to: &message)
        message.append(contentsOf: suffix)
        if settings.acks {
            message.append(contentsOf: #","ref":"#.utf8)
            appendDecimal(seq, to: &message)
        }
        message.append(UInt8(ascii: "}"))
        messageSize = message.count
        sendTimes[sender * Self.ring + seq & (Self.ring - 1)] = t
        sent[sender] = seq + 1
        if t >= measureStart && t < measureEnd {
            actionsInWindow += 1
            if settings.timeline { tick(&timelineActions, t, 1) }
        }
        message.withUnsafeBytes { loop.sendText(connection, $0) }
        return true
    }

    // MARK: Workload

    func opened(_ connection: Connection) {
        switch settings.proto {
        case .reactorhub:
            let join = #"{"type":"join","reactor":""# + settings.reactor + #""}"#
            Array(join.utf8).withUnsafeBytes { loop.sendText(connection, $0) }
        case .mirror:
            markReady(connection)
        }
    }

    func closed(_ connection: Connection, reason: String) {
        if !ready[connection.id] {
            connecting -= 1
            connectMore()
        }
        closedConnections += 1
        if firstClose == nil {
            firstClose = "connection \(connection.id) (\(connection.id < subscriberCount ? "subscriber" : "sender")): \(reason)"
        }
        if phase != .draining && phase != .done {
            abort("connection \(connection.id) closed: \(reason)")
        }
    }

    func received(_ connection: Connection, _ payload: UnsafeMutablePointer<UInt8>, _ count: Int, now: UInt64) {
        let index = connection.id
        let inWindow = now >= measureStart && now < measureEnd
        if index >= subscriberCount {
            senderMessage(connection, payload, count, inWindow: inWindow)
            return
        }
        switch settings.proto {
        case .mirror:
            if inWindow {
                updates += 1
                frames += 1
                bytes += count
                if settings.timeline { tick(&timelineUpdates, now, 1) }
            }
            Scan.samples(payload, count, from: 0, into: &samples)
            for sample in samples {
                cover(index, sample, now: now, exact: true)
            }
        case .reactorhub:
            switch Scan.messageType(payload, count) {
            case .patch:
                guard let header = Scan.patchHeader(payload, count) else {
                    return serverError("a patch frame without version: " + text(payload, count))
                }
                if header.base != held[index] {
                    if header.base > held[index] { gaps += 1 } else { reorders += 1 }
                    if gaps + reorders <= 3 {
                        log("subscriber \(index): patch base \(header.base) version \(header.version) but holds \(held[index])")
                    }
                }
                held[index] = header.version
                if inWindow {
                    updates += header.version - header.base
                    frames += 1
                    bytes += count
                    if settings.timeline { tick(&timelineUpdates, now, header.version - header.base) }
                }
                Scan.samples(payload, count, from: header.ops, into: &samples)
                for sample in samples {
                    cover(index, sample, now: now, exact: false)
                }
            case .snapshot:
                let version = Scan.integer(after: Needles.version, payload, from: 0, to: count)?.value ?? 0
                held[index] = version
                if !ready[index] {
                    markReady(connection)
                } else {
                    resyncs += 1
                    if inWindow { frames += 1; bytes += count }
                    Scan.snapshotSamples(payload, count, into: &samples)
                    for sample in samples {
                        cover(index, sample, now: now, exact: false)
                    }
                }
            case .error:
                serverError(text(payload, count))
            default:
                break
            }
        }
    }

    private func senderMessage(_ connection: Connection, _ payload: UnsafeMutablePointer<UInt8>, _ count: Int, inWindow: Bool) {
        if inWindow { senderFrames += 1 }
        guard settings.proto == .reactorhub else { return }
        switch Scan.messageType(payload, count) {
        case .snapshot:
            markReady(connection)
        case .ack:
            // Acks come in the order of the actions: ref = the next sequence number.
            let sender = connection.id - subscriberCount
            let ref = Scan.integer(after: Needles.ref, payload, from: 0, to: count)?.value
            if ref != nextAck[sender] { ackMismatches += 1 }
            nextAck[sender] = (ref ?? nextAck[sender]) + 1
            if inWindow { acks += 1 }
        case .error:
            serverError(text(payload, count))
        default:
            break
        }
    }

    private func serverError(_ message: String) {
        serverErrors += 1
        if firstServerError == nil {
            firstServerError = message
            log("server error: \(message)")
        }
    }

    private func text(_ payload: UnsafeMutablePointer<UInt8>, _ count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: payload, count: min(count, 300)), as: UTF8.self)
    }

    /// Subscriber `index` now holds `sample.seq` of `sample.sender`, and everything
    /// before it: record one delivery per newly covered action.
    @inline(__always)
    private func cover(_ index: Int, _ sample: OpSample, now: UInt64, exact: Bool) {
        let sender = sample.sender
        guard sender >= 0 && sender < senderCount else { return }
        let slot = index * senderCount + sender
        let previous = lastSeq[slot]
        let seq = sample.seq
        guard seq > previous else {
            reorders += 1
            return
        }
        guard seq < sent[sender] else { return }
        let ring = sender * Self.ring
        let mask = Self.ring - 1
        if sample.t != 0 && sample.t != sendTimes[ring + seq & mask] { timestampMismatches += 1 }
        var covered = previous + 1
        while covered <= seq {
            let sentAt = sendTimes[ring + covered & mask]
            let measured = sentAt >= measureStart && sentAt < measureEnd
            if exact && covered != seq {
                // A mirror never coalesces: a skipped message was lost.
                if measured { lost += 1 }
            } else if measured {
                delivery.record(nanos: now &- sentAt)
            }
            let reached = counts[ring + covered & mask] &+ 1
            counts[ring + covered & mask] = reached
            if Int(reached) == subscriberCount && measured {
                last.record(nanos: now &- sentAt)
            }
            covered += 1
        }
        lastSeq[slot] = seq
        var done = completed[sender]
        let limit = sent[sender]
        while done < limit && Int(counts[ring + done & mask]) >= subscriberCount {
            counts[ring + done & mask] = 0
            done += 1
        }
        if done != completed[sender] {
            completed[sender] = done
            lastProgress = now
        }
    }

    private func tick(_ series: inout [Int], _ time: UInt64, _ amount: Int) {
        let slot = Int((time - measureStart) / 100_000_000)
        while series.count <= slot { series.append(0) }
        series[slot] += amount
    }

    /// One line per 100 ms: actions sent and updates applied in it.
    var timelineText: String {
        var lines = ["timeline (per 100 ms: actions sent / updates applied)"]
        for slot in 0..<max(timelineUpdates.count, timelineActions.count) {
            let actions = slot < timelineActions.count ? timelineActions[slot] : 0
            let applied = slot < timelineUpdates.count ? timelineUpdates[slot] : 0
            lines.append("  \(fmt(Double(slot) / 10, 1)) s  \(actions) / \(applied)")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Report

    private func report() -> FanoutReport {
        let seconds = measureEnd > measureStart && measureEnd != .max ? Double(measureEnd - measureStart) / 1e9 : 0
        var incomplete = 0
        for index in 0..<subscriberCount {
            for sender in 0..<senderCount where lastSeq[index * senderCount + sender] != sent[sender] - 1 {
                incomplete += 1
                break
            }
        }
        return FanoutReport(
            label: settings.label,
            mode: settings.proto == .reactorhub ? "fanout" : "raw",
            subscribers: subscriberCount,
            senders: senderCount,
            pace: settings.pace,
            size: messageSize,
            seconds: seconds,
            connectSeconds: Double(connectedAt &- startedConnecting) / 1e9,
            actions: actionsInWindow,
            updates: updates,
            frames: frames,
            bytes: bytes,
            senderFrames: senderFrames,
            acksExpected: settings.acks,
            acks: acks,
            ackMismatches: ackMismatches,
            delivery: delivery.summary(),
            last: last.summary(),
            gaps: gaps,
            reorders: reorders,
            lost: lost,
            resyncs: resyncs,
            incomplete: incomplete,
            serverErrors: serverErrors,
            firstServerError: firstServerError,
            closed: closedConnections,
            firstClose: firstClose,
            timestampMismatches: timestampMismatches,
            skipped: skipped,
            clientCPU: clientCPU,
            serverCPU: serverCPU,
            serverMallocs: serverMallocs,
            machineCPU: machineBusy,
            aborted: aborted
        )
    }

    private func log(_ line: String) {
        if settings.verbose { printError("[\(settings.label)] \(line)") }
    }
}

/// Appends the decimal digits of a non-negative integer.
@inline(__always)
func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
    if value == 0 {
        bytes.append(48)
        return
    }
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    var rest = value
    withUnsafeMutableBytes(of: &digits) { buffer in
        while rest > 0 {
            buffer[count] = UInt8(48 + rest % 10)
            rest /= 10
            count += 1
        }
        for index in stride(from: count - 1, through: 0, by: -1) {
            bytes.append(buffer[index])
        }
    }
}
