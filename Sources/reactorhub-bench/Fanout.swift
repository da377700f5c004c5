import Glibc

/// `fanout` and `raw`: N subscribers and S senders on one reactor (or one mirror), or
/// spread over R reactors (mirror rooms) as `ReactorLayout` says.
///
/// Every action is a doc `set` of `/sK` (K = the sender, or with several reactors the
/// link: one sender's connection to one reactor) to `{"t":NANOS,"seq":N,"pad":…}`;
/// against a mirror server the same text is sent and echoed to everyone in the room.
/// Subscribers read the timestamps back out of the patches (or echoes), so latency is
/// measured from the moment the sender wrote the action to the moment each subscriber read it.
///
/// An action is *complete* once every subscriber of its reactor holds it (its version, or
/// a later one that covers it: a multi-version patch with `base`, or a snapshot). With
/// `--window W` each sender keeps at most W incomplete actions in flight, summed over its
/// reactors: the saturation throughput without unbounded queues. With `--rate R` the
/// senders send R actions per second together, on a timer, whatever happens.
final class Fanout: Workload {
    enum Wire { case reactorhub, mirror }
    enum Pace { case rate(Double), window(Int) }
    enum Phase { case connecting, warmup, measuring, draining, done }

    struct Settings {
        var endpoint: Endpoint
        /// Subscriber `i` connects to `subscriberEndpoints[i % count]` (nodes of a cluster);
        /// empty: `endpoint`.
        var subscriberEndpoints: [Endpoint] = []
        /// Where the senders connect: link `j` to `senderEndpoints[j % count]`; empty: `endpoint`.
        var senderEndpoints: [Endpoint] = []
        var proto: Wire
        /// Subscribers, senders and reactors, and how they are spread.
        var layout: ReactorLayout
        var pace: Pace
        var warmup: Double
        var duration: Double
        var size: Int
        /// Each action carries `"ref":SEQ`, so the daemon answers every one with an `ack`.
        var acks: Bool = false
        /// The pad is words, in one of eight orders that change from one action to the next,
        /// so that every patch carries it (a fixed pad is unchanged after the first action).
        var textPad: Bool = false
        /// The counter file of bench/malloc-count.so loaded into the server, read when the
        /// server's CPU is: heap allocations per action.
        var mallocCounter: MallocCounter?
        /// The reactor, or with several the prefix of each: `REACTOR-K`.
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

    let settings: Settings
    let loop: Loop<Fanout>
    let layout: ReactorLayout
    let subscriberCount: Int
    let senderCount: Int
    /// Sending connections: the senders, or with several reactors their links.
    let linkCount: Int
    /// Slots per link for the send times of actions in flight (a power of two).
    let ring: Int
    private let subscribersPerReactor: Int
    private let linksPerReactor: Int
    private(set) var phase = Phase.connecting

    // Subscribers
    private var held: [Int]
    private var ready: [Bool]
    private var readyCount = 0
    private var nextToConnect = 0
    private var connecting = 0
    private let lastSeq: UnsafeMutablePointer<Int>

    // Senders (by link, unless said otherwise)
    private var sent: [Int]
    private var completed: [Int]
    /// Per sender: its incomplete actions, over all its links.
    private var inFlight: [Int]
    /// Per sender: the turn of its next link (0..<linksPerSender).
    private var nextTurn: [Int]
    private let sendTimes: UnsafeMutablePointer<UInt64>
    private let counts: UnsafeMutablePointer<Int32>
    private var prefixes: [[UInt8]] = []
    private var suffix: [UInt8] = []
    /// With `textPad`: eight suffixes, action N sending suffix N % 8.
    private var textSuffixes: [[UInt8]] = []
    private var message: [UInt8] = []
    private var joins: [[UInt8]] = []
    private var nextLink = 0
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
    /// Frame bytes as they came over the subscribers' sockets (compressed when negotiated).
    private var wireBytes = 0
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
    /// Actions of another reactor (another mirror room) seen by a subscriber.
    private var crossed = 0
    private var skipped = 0
    private var stalled = false
    private var aborted: String?
    private var samples: [OpSample] = []
    private var timelineUpdates: [Int] = []
    private var timelineActions: [Int] = []

    init(settings: Settings) {
        self.settings = settings
        layout = settings.layout
        subscriberCount = layout.subscribers
        senderCount = layout.senders
        linkCount = layout.links
        subscribersPerReactor = layout.subscribersPerReactor
        linksPerReactor = layout.linksPerReactor
        // With many links, fewer slots each (at least 1024): ~2 M in all.
        var slots = 1 << 16
        while layout.reactors > 1 && slots > 1024 && slots * linkCount > 1 << 21 { slots >>= 1 }
        ring = slots
        let total = subscriberCount + linkCount
        let spread = settings.subscriberEndpoints.isEmpty ? [settings.endpoint] : settings.subscriberEndpoints
        let subscribers = subscriberCount
        // A mirror's room is in the upgrade's URL: one endpoint per URL and room.
        let rooms = settings.proto == .mirror ? layout.reactors : 1
        let roomed = { (endpoint: Endpoint) in
            (0..<rooms).map { rooms == 1 ? endpoint : endpoint.adding(argument: "mirror", value: settings.mirrorRoom($0)) }
        }
        let senders = settings.senderEndpoints.isEmpty ? [settings.endpoint] : settings.senderEndpoints
        let endpoints = spread.flatMap(roomed) + senders.flatMap(roomed)
        let layout = self.layout
        loop = Loop(endpoints: endpoints, count: total) { index in
            if index < subscribers {
                return index % spread.count * rooms + layout.reactor(ofSubscriber: index) % rooms
            }
            let link = index - subscribers
            return (spread.count + link % senders.count) * rooms + layout.reactor(ofLink: link) % rooms
        }
        held = Array(repeating: 0, count: subscriberCount)
        ready = Array(repeating: false, count: total)
        lastSeq = .allocate(capacity: subscriberCount * linksPerReactor)
        lastSeq.initialize(repeating: -1, count: subscriberCount * linksPerReactor)
        sent = Array(repeating: 0, count: linkCount)
        completed = Array(repeating: 0, count: linkCount)
        inFlight = Array(repeating: 0, count: senderCount)
        nextTurn = Array(repeating: 0, count: senderCount)
        nextAck = Array(repeating: 0, count: linkCount)
        sendTimes = .allocate(capacity: linkCount * ring)
        sendTimes.initialize(repeating: 0, count: linkCount * ring)
        counts = .allocate(capacity: linkCount * ring)
        counts.initialize(repeating: 0, count: linkCount * ring)
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
    /// `size` bytes; K is the link (the sender, with one reactor), R the link's reactor.
    private func buildTemplates() {
        for link in 0..<linkCount {
            let text = #"{"type":"action","reactor":""# + settings.reactorName(layout.reactor(ofLink: link))
                + #"","action":{"type":"set","path":"/s"# + String(link) + #"","value":{"t":"#
            prefixes.append(Array(text.utf8))
        }
        for reactor in 0..<layout.reactors {
            joins.append(Array((#"{"type":"join","reactor":""# + settings.reactorName(reactor) + #""}"#).utf8))
        }
        let fixed = prefixes[0].count + String(monotonicNanos()).count + #","seq":"#.count + 4 + #","pad":""#.count + #""}}}"#.count
        let pad = String(repeating: "x", count: max(1, settings.size - fixed))
        suffix = Array((#","pad":""# + pad + #""}}"#).utf8)
        let words = "the state of each reactor is kept in sync with every client that joins it while a patch carries only what changed".split(separator: " ")
        textSuffixes = (0..<8).map { variant in
            var text = ""
            var index = variant * 3
            while text.utf8.count < pad.utf8.count {
                text += (text.isEmpty ? "" : " ") + words[index % words.count]
                index += 1 + variant
            }
            return Array((#","pad":""# + String(text.prefix(pad.utf8.count)) + #""}}"#).utf8)
        }
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
        let total = subscriberCount + linkCount
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
            if readyCount == subscriberCount + linkCount {
                connectedAt = now
                phase = .warmup
                measureStart = now + UInt64(settings.warmup * 1e9)
                measureEnd = measureStart + UInt64(settings.duration * 1e9)
                lastProgress = now
                if case .rate(let rate) = settings.pace {
                    loop.addTimer(tag: 1, periodNanos: UInt64(max(1_000, 1e9 / rate)))
                }
                if layout.reactors == 1 {
                    log("connected \(subscriberCount) subscribers and \(senderCount) senders in \(ms(Double(now - startedConnecting) / 1000)) ms")
                } else {
                    log("connected \(subscriberCount) subscribers to \(layout.reactors) reactors and \(senderCount) senders (\(linkCount) links) in \(ms(Double(now - startedConnecting) / 1000)) ms")
                }
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
            let drained = (0..<linkCount).allSatisfy { completed[$0] == sent[$0] }
            if drained || now - measureEnd > 3_000_000_000 || aborted != nil {
                phase = .done
            }
        case .done:
            break
        }
        if aborted != nil && phase != .draining { phase = .done }
        if case .window = settings.pace, phase == .warmup || phase == .measuring, now - lastProgress > 5_000_000_000 {
            stalled = true
            abort("no action completed for 5 s (in flight: \(inFlight))")
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

    /// Each sender sends until it has `window` actions in flight, its links taking turns.
    private func refill(now: UInt64) {
        guard case .window(let window) = settings.pace else { return }
        let turns = layout.linksPerSender
        for sender in 0..<senderCount {
            while inFlight[sender] < window {
                if !send(on: layout.link(ofSender: sender, turn: nextTurn[sender])) { break }
                nextTurn[sender] = turns == 1 ? 0 : (nextTurn[sender] + 1) % turns
            }
        }
    }

    /// The links take turns: sender after sender, then each sender's next reactor.
    func timerFired(_ tag: Int, expirations: UInt64) {
        guard phase == .warmup || phase == .measuring else { return }
        for _ in 0..<expirations {
            if !send(on: nextLink) { skipped += 1 }
            nextLink = (nextLink + 1) % linkCount
        }
    }

    @discardableResult
    private func send(on link: Int) -> Bool {
        let seq = sent[link]
        guard seq - completed[link] < ring - 1 else { return false }
        let connection = loop.connections[subscriberCount + link]
        guard connection.phase == .open else { return false }
        message.removeAll(keepingCapacity: true)
        message.append(contentsOf: prefixes[link])
        let t = monotonicNanos()
        appendDecimal(Int(t), to: &message)
        message.append(contentsOf: #","seq":"#.utf8)
        appendDecimal(seq, to: &message)
        message.append(contentsOf: settings.textPad ? textSuffixes[seq & 7] : suffix)
        if settings.acks {
            message.append(contentsOf: #","ref":"#.utf8)
            appendDecimal(seq, to: &message)
        }
        message.append(UInt8(ascii: "}"))
        messageSize = message.count
        sendTimes[link * ring + seq & (ring - 1)] = t
        sent[link] = seq + 1
        inFlight[layout.sender(ofLink: link)] += 1
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
            let id = connection.id
            let reactor = id < subscriberCount ? layout.reactor(ofSubscriber: id) : layout.reactor(ofLink: id - subscriberCount)
            joins[reactor].withUnsafeBytes { loop.sendText(connection, $0) }
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
            var hint = ""
            if settings.proto == .mirror && layout.reactors > 3 && phase != .measuring {
                // plugins/protocol_lws_mirror.c: MAX_MIRROR_INSTANCES 3; a fourth room's
                // upgrade completes, then the connection is dropped.
                hint = " (libwebsockets-test-server 4.1.6 keeps at most 3 mirror rooms; scripts/build-mirror-rooms.sh builds one with more)"
            }
            abort("connection \(connection.id) closed: \(reason)\(hint)")
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
                    wireBytes += connection.lastMessageWireBytes
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
                    if inWindow { frames += 1; bytes += count; wireBytes += connection.lastMessageWireBytes }
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
            // Acks come in the order of the actions: ref = the link's next sequence number.
            let link = connection.id - subscriberCount
            let ref = Scan.integer(after: Needles.ref, payload, from: 0, to: count)?.value
            if ref != nextAck[link] { ackMismatches += 1 }
            nextAck[link] = (ref ?? nextAck[link]) + 1
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

    /// Subscriber `index` now holds `sample.seq` of link `sample.sender`, and everything
    /// before it: record one delivery per newly covered action.
    @inline(__always)
    private func cover(_ index: Int, _ sample: OpSample, now: UInt64, exact: Bool) {
        let link = sample.sender
        guard link >= 0 && link < linkCount else { return }
        var place = link
        if layout.reactors > 1 {
            guard layout.reactor(ofLink: link) == layout.reactor(ofSubscriber: index) else {
                crossed += 1
                return
            }
            place = layout.place(ofLink: link)
        }
        let slot = index * linksPerReactor + place
        let previous = lastSeq[slot]
        let seq = sample.seq
        guard seq > previous else {
            reorders += 1
            return
        }
        guard seq < sent[link] else { return }
        let base = link * ring
        let mask = ring - 1
        if sample.t != 0 && sample.t != sendTimes[base + seq & mask] { timestampMismatches += 1 }
        var covered = previous + 1
        while covered <= seq {
            let sentAt = sendTimes[base + covered & mask]
            let measured = sentAt >= measureStart && sentAt < measureEnd
            if exact && covered != seq {
                // A mirror never coalesces: a skipped message was lost.
                if measured { lost += 1 }
            } else if measured {
                delivery.record(nanos: now &- sentAt)
            }
            let reached = counts[base + covered & mask] &+ 1
            counts[base + covered & mask] = reached
            if Int(reached) == subscribersPerReactor && measured {
                last.record(nanos: now &- sentAt)
            }
            covered += 1
        }
        lastSeq[slot] = seq
        var done = completed[link]
        let limit = sent[link]
        while done < limit && Int(counts[base + done & mask]) >= subscribersPerReactor {
            counts[base + done & mask] = 0
            done += 1
        }
        if done != completed[link] {
            inFlight[layout.sender(ofLink: link)] -= done - completed[link]
            completed[link] = done
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
            let reactor = layout.reactor(ofSubscriber: index)
            for place in 0..<linksPerReactor
            where lastSeq[index * linksPerReactor + place] != sent[layout.link(ofReactor: reactor, place: place)] - 1 {
                incomplete += 1
                break
            }
        }
        return FanoutReport(
            label: settings.label,
            mode: settings.proto == .reactorhub ? "fanout" : "raw",
            subscribers: subscriberCount,
            senders: senderCount,
            reactors: layout.reactors,
            links: linkCount,
            pace: settings.pace,
            size: messageSize,
            seconds: seconds,
            connectSeconds: Double(connectedAt &- startedConnecting) / 1e9,
            actions: actionsInWindow,
            updates: updates,
            frames: frames,
            bytes: bytes,
            wireBytes: wireBytes,
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
            crossed: crossed,
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
