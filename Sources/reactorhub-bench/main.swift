import Glibc

let usage = """
usage: reactorhub-bench MODE --url ws[s]://HOST:PORT/PATH [options]

Load generator for ReactorHub: raw sockets, epoll, one thread, its own RFC 6455 client.
Prints a readable summary, then one line `RESULT {json}` for scripts.

modes:
  fanout   N subscribers and S senders joined to one `doc` reactor of the daemon (or
           spread over R, --reactors); each action is a doc `set` of /sK to
           {"t":NANOS,"seq":N,"pad":"x…"}; subscribers read t back from the patches (also
           multi-version ones with `base`)
  raw      the same fan-out against a plain broadcast server (lws-mirror-protocol, or the
           node-ws baseline): the same action text, echoed to every client (of the room:
           with R reactors, R rooms `?mirror=NAME`)
  idle     N connections, each joined to one of R `doc` reactors (or just open, with
           --protocol mirror); time to connect them all, server RSS per connection
  selftest the frame scanner against canned frames (single and multi-version patches,
           leaf ops, snapshots, mirrored actions), and the spread of --reactors; no
           server needed

fanout / raw options:
  --subscribers N     receiving connections (default 100; with --reactors, in all)
  --senders S         sending connections, not counted as subscribers (default 1; with
                      --reactors, senders in all, each with a connection per reactor)
  --window W[,W…]     saturation: each sender keeps W actions in flight, an action being
                      done once every subscriber (of its reactor) holds it (default 16);
                      with a list, one run per value and the best (in order, most
                      updates/s) is reported
  --rate R[,R…]       fixed rate: R actions per second in total, on a timer (instead of
                      --window)
  --repeat N          run each window (or rate) N times; report the best (default 1)
  --warmup SECONDS    sending before measuring (default 1)
  --duration SECONDS  measured time (default 5)
  --size BYTES        size of an action message, reached by padding (default 100; the
                      envelope and timestamp alone take ~125 bytes, then the pad is 1)
  --text-pad          the pad is words in one of eight orders, changing from one action
                      to the next, so that every patch carries it (as long as --size
                      asks); without it the pad stays the same and patches leave it out
  --acks              every action carries "ref":SEQ, so the daemon acks each one; the
                      senders check that the acks come in order
  --malloc-count FILE the counter file of bench/malloc-count.so, preloaded into the server
                      (MALLOC_COUNT_FILE=FILE LD_PRELOAD=…/malloc-count.so): its heap calls
                      per action during the measurement
  --reactor KIND/ID   reactor (default doc/bN…: a fresh one for each run); with
                      --reactors, the prefix of each
  --reactors R        many reactors (default 1): reactor k (0 ≤ k < R) is KIND/ID-k, and
                      for raw the mirror room ?mirror=ID-k (lws-mirror-protocol, or
                      bench/node-broadcast.js; libwebsockets-test-server 4.1.6 keeps at most
                      3 rooms, scripts/build-mirror-rooms.sh builds one with more).
                      --subscribers N is the total: subscriber i joins reactor i mod R
                      (N must be a multiple of R: N/R each). --senders S is the total:
                      senders reach reactors over sending connections, connection l
                      (0 ≤ l < max(R, S)) being sender l mod S's to reactor l mod R (one
                      of R and S must divide the other): with S ≥ R, sender j sends to
                      reactor j mod R; with S < R, sender j to R/S reactors, one action
                      each in turn. The action's /sK names its connection, whose actions
                      are numbered on their own. --window W: each sender keeps W actions
                      in flight summed over its reactors, an action being done once every
                      subscriber of its own reactor holds it; --rate: the connections
                      take turns, sender after sender, then the next reactor of each
  --turn-pause-us US  least time between two event-loop turns (default 250 with --window,
                      0 with --rate): frames gather in the sockets so that one read takes
                      many, which keeps the client's CPU per frame low at saturation

idle options:
  --connections N     connections (default 10000)
  --reactors R        reactors they join, round robin (default 100)
  --hold SECONDS      how long to hold them before reading RSS (default 2)

common options:
  --url URL           ws://HOST:PORT/PATH, or wss:// for TLS through libssl (the server's
                      certificate is not verified: loopback, self-signed); IPv4 or localhost;
                      default ws://127.0.0.1:8080/ws. Several, comma-separated (the nodes
                      of a cluster): subscriber i connects to URL i mod n
  --sender-url URL    where the senders connect (default: the first --url). Several,
                      comma-separated: sending connection j to the (j mod count)-th
  --token T           a token for a daemon with auth: sent as ?token=T on every upgrade
  --token-file FILE   one token per line; connection i sends line i (mod their count):
                      distinct tokens, each verified by the daemon
  --token-header      send the token as `Authorization: Bearer T` instead
  --token-message     idle only: send it after the upgrade, as {"type":"auth","token":T},
                      and join on `authed`
  --protocol P        reactorhub or mirror (default: reactorhub for fanout and idle,
                      mirror for raw)
  --deflate           offer permessage-deflate (client_max_window_bits allowed) on every
                      upgrade, inflate what comes compressed and, when the server accepted,
                      send compressed messages too; `on the wire` reports the frame bytes as
                      they came, per update
  --subprotocol NAME  Sec-WebSocket-Protocol to offer; '' for none (default
                      reactorhub.v1, or lws-mirror-protocol with --protocol mirror)
  --server-pid PID    the server's process: its CPU time and RSS are reported
  --batch N           connections being opened at once (default 256)
  --label TEXT        name of the run in the output (default: the mode)
  --timeline          also print actions sent and updates applied per 100 ms (stalls)
  --quiet             no progress lines on standard error
  --help              this text

Measured, for fanout and raw (between warm-up and the end, at the subscribers):
updates applied per second (one version reaching one subscriber; a frame with `base`
counts version - base), frames per second, latency from the sender's write to each
subscriber and to the last subscriber (p50/p90/p99/max), the client's and the server's
CPU seconds, and a check that every subscriber saw every version in order (patch base =
version held; a resync snapshot counts as seeing the versions it covers). With
--reactors R: summed over the reactors; "last subscriber" is the last of the action's
reactor; the order is checked per subscriber and sending connection of its reactor, and
an action of another reactor reaching a subscriber is a problem (`crossed`).
"""

struct Arguments {
    var mode = ""
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ arguments: [String]) throws(UsageError) {
        var index = 0
        let flagNames: Set<String> = ["--quiet", "--help", "-h", "--timeline", "--token-header", "--token-message", "--acks", "--deflate", "--text-pad"]
        while index < arguments.count {
            let argument = arguments[index]
            if flagNames.contains(argument) {
                flags.insert(argument == "-h" ? "--help" : argument)
            } else if argument.hasPrefix("--") {
                if let equals = argument.firstIndex(of: "=") {
                    values[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
                } else {
                    guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                    values[argument] = arguments[index + 1]
                    index += 1
                }
            } else if mode.isEmpty {
                mode = argument
            } else {
                throw UsageError("unexpected argument '\(argument)'")
            }
            index += 1
        }
    }

    func string(_ name: String, _ fallback: String) -> String { values[name] ?? fallback }

    func int(_ name: String, _ fallback: Int, minimum: Int = 1) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value >= minimum else { throw UsageError("\(name) takes an integer ≥ \(minimum), not '\(text)'") }
        return value
    }

    func double(_ name: String, _ fallback: Double) throws(UsageError) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value >= 0 else { throw UsageError("\(name) takes a non-negative number, not '\(text)'") }
        return value
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

let known: Set<String> = [
    "--url", "--sender-url", "--protocol", "--subprotocol", "--server-pid", "--batch", "--label", "--subscribers", "--senders",
    "--window", "--rate", "--warmup", "--duration", "--size", "--reactor", "--connections", "--reactors", "--hold", "--turn-pause-us", "--repeat",
    "--token", "--token-file", "--malloc-count",
]

func main() -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    } catch {
        printError("reactorhub-bench: \(error.message)\n\n\(usage)")
        return 2
    }
    if arguments.flags.contains("--help") || arguments.mode.isEmpty {
        print(usage)
        return arguments.mode.isEmpty && !arguments.flags.contains("--help") ? 2 : 0
    }
    for name in arguments.values.keys where !known.contains(name) {
        printError("reactorhub-bench: unknown option \(name) (see --help)")
        return 2
    }
    if arguments.mode == "selftest" { return SelfTest.run() }
    signal(SIGPIPE, SIG_IGN)
    raiseOpenFileLimit()
    do {
        let mode = arguments.mode
        guard ["fanout", "raw", "idle"].contains(mode) else { throw UsageError("unknown mode '\(mode)'; modes: fanout, raw, idle") }
        let protoName = arguments.string("--protocol", mode == "raw" ? "mirror" : "reactorhub")
        let proto: Fanout.Wire
        switch protoName {
        case "reactorhub": proto = .reactorhub
        case "mirror": proto = .mirror
        default: throw UsageError("--protocol is reactorhub or mirror, not '\(protoName)'")
        }
        let subprotocol = arguments.string("--subprotocol", proto == .mirror ? "lws-mirror-protocol" : "reactorhub.v1")
        var tokens: [String] = []
        if let token = arguments.values["--token"] {
            tokens = [token]
        }
        if let file = arguments.values["--token-file"] {
            guard let text = readSmallFile(file) else { throw UsageError("--token-file: cannot read \(file)") }
            tokens += text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        guard tokens.allSatisfy({ token in token.allSatisfy { $0.isASCII && !$0.isWhitespace } }) else {
            throw UsageError("--token and --token-file take tokens without spaces (JWTs)")
        }
        let tokenInHeader = arguments.flags.contains("--token-header")
        if tokenInHeader && tokens.isEmpty {
            throw UsageError("--token-header needs --token or --token-file")
        }
        let tokenInMessage = arguments.flags.contains("--token-message")
        if tokenInMessage && (tokens.isEmpty || tokenInHeader || arguments.mode != "idle") {
            throw UsageError("--token-message is for idle, with --token or --token-file and without --token-header")
        }
        func makeEndpoint(_ url: String, option: String) throws -> Endpoint {
            guard var endpoint = Endpoint(url: url, subprotocol: subprotocol) else {
                throw UsageError("\(option) must be ws://HOST:PORT/PATH or wss://HOST:PORT/PATH with an IPv4 host, not '\(url)'")
            }
            endpoint.tokens = tokens
            endpoint.tokenInHeader = tokenInHeader
            endpoint.tokenInMessage = tokenInMessage
            endpoint.deflate = arguments.flags.contains("--deflate")
            return endpoint
        }
        let endpoints = try arguments.string("--url", "ws://127.0.0.1:8080/ws").split(separator: ",").map {
            try makeEndpoint(String($0), option: "--url")
        }
        guard let endpoint = endpoints.first else { throw UsageError("--url needs at least one URL") }
        let senderEndpoints = try (arguments.values["--sender-url"] ?? "").split(separator: ",").map {
            try makeEndpoint(String($0), option: "--sender-url")
        }
        var server: WatchedProcess?
        if arguments.values["--server-pid"] != nil {
            server = WatchedProcess(pid: Int32(try arguments.int("--server-pid", 0)))
        }
        let label = arguments.string("--label", mode)
        let verbose = !arguments.flags.contains("--quiet")
        let batch = try arguments.int("--batch", 256)
        let unique = String(UInt64(getpid()) &* 1_000_003 &+ monotonicNanos() / 1000, radix: 36).suffix(6)

        if mode == "idle" {
            let idle = Idle(settings: Idle.Settings(
                endpoint: endpoint,
                proto: proto,
                connections: try arguments.int("--connections", 10_000),
                reactors: try arguments.int("--reactors", 100),
                reactorPrefix: "doc/idle-\(unique)-",
                batch: batch,
                hold: try arguments.double("--hold", 2),
                server: server,
                label: label,
                verbose: verbose
            ))
            let json = idle.run()
            print("RESULT " + json)
            return 0
        }

        var paces: [Fanout.Pace] = []
        var defaultPause = 0
        if let text = arguments.values["--rate"] {
            for item in text.split(separator: ",") {
                guard let rate = Double(item), rate > 0 else { throw UsageError("--rate takes positive numbers, not '\(text)'") }
                paces.append(.rate(rate))
            }
        } else {
            for item in arguments.string("--window", "16").split(separator: ",") {
                guard let window = Int(item), window > 0 else { throw UsageError("--window takes positive integers, not '\(item)'") }
                paces.append(.window(window))
            }
            defaultPause = 250
        }
        let repeats = try arguments.int("--repeat", 1)
        let baseReactor = arguments.string("--reactor", "doc/b\(unique)")
        let layout = try ReactorLayout(
            reactors: try arguments.int("--reactors", 1),
            subscribers: try arguments.int("--subscribers", 100),
            senders: try arguments.int("--senders", 1)
        )
        if proto == .mirror && layout.reactors > 1 {
            if (endpoints + senderEndpoints).contains(where: { $0.path.contains("mirror=") }) {
                throw UsageError("with --reactors, the mirror room is set for each reactor: no ?mirror= in --url")
            }
            // The sweep adds -N (the try) to the prefix, then each room -K.
            let longest = baseReactor.split(separator: "/", maxSplits: 1).last.map(String.init) ?? baseReactor
            let room = longest + (paces.count * repeats > 1 ? "-\(paces.count * repeats)" : "") + "-\(layout.reactors - 1)"
            if room.utf8.count > 28 {
                throw UsageError("mirror room '\(room)' is too long: lws-mirror-protocol keeps 28 bytes of a name (use a shorter --reactor)")
            }
        }
        var best: FanoutReport?
        var tries: [String] = []
        var attempt = 0
        let sweeping = paces.count * repeats > 1
        for pace in paces {
            for _ in 0..<repeats {
                attempt += 1
                let fanout = Fanout(settings: Fanout.Settings(
                    endpoint: endpoint,
                    subscriberEndpoints: endpoints.count > 1 ? endpoints : [],
                    senderEndpoints: senderEndpoints,
                    proto: proto,
                    layout: layout,
                    pace: pace,
                    warmup: try arguments.double("--warmup", 1),
                    duration: try arguments.double("--duration", 5),
                    size: try arguments.int("--size", 100),
                    acks: arguments.flags.contains("--acks"),
                    textPad: arguments.flags.contains("--text-pad"),
                    mallocCounter: arguments.values["--malloc-count"].map { MallocCounter(path: $0) },
                    reactor: sweeping ? "\(baseReactor)-\(attempt)" : baseReactor,
                    batch: batch,
                    turnPauseMicros: try arguments.int("--turn-pause-us", defaultPause, minimum: 0),
                    timeline: arguments.flags.contains("--timeline"),
                    server: server,
                    label: label,
                    verbose: verbose
                ))
                let report = fanout.run()
                if arguments.flags.contains("--timeline") { print(fanout.timelineText) }
                if sweeping {
                    print(report.brief)
                    tries.append(report.tryJSON)
                }
                let better: Bool
                if let current = best {
                    better = (report.ordered && !current.ordered)
                        || (report.ordered == current.ordered && report.updatesPerSecond > current.updatesPerSecond)
                } else {
                    better = true
                }
                if better { best = report }
            }
        }
        guard var report = best else { return 2 }
        report.tries = tries
        if sweeping { print("best of \(tries.count):") }
        print(report.text)
        print("RESULT " + report.json)
        return report.aborted == nil ? 0 : 1
    } catch let error as UsageError {
        printError("reactorhub-bench: \(error.message)")
        return 2
    } catch {
        printError("reactorhub-bench: \(error)")
        return 2
    }
}

exit(main())
