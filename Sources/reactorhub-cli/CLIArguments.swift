import Foundation

/// The command line of `reactorhub-cli`, parsed: the command, its operands and options.
struct CLIArguments: Equatable {
    enum Command: String, Equatable {
        case watch, send, state
    }

    var command: Command
    var url: String
    var reactor: String
    var action: String?
    var json = false
    var token: String?
    var caFile: String?
    var insecure = false
    var timeout: Double = 10

    /// A usage error: the sentence to print before pointing at `--help`.
    struct UsageError: Error, Equatable {
        let message: String
    }

    static let usage = """
        reactorhub-cli: a terminal client for ReactorHub (the Swift client library's own).

        usage:
          reactorhub-cli watch URL REACTOR [options]         print the state at each change (and each pulse) until interrupted
          reactorhub-cli send  URL REACTOR ACTION [options]  send one action; print the ack, or the refusal (exit status 1)
          reactorhub-cli state URL REACTOR [options]         print the state once and exit

          URL      ws://HOST:PORT/ws or wss://HOST:PORT/ws; HOST:PORT alone means ws://HOST:PORT/ws
          REACTOR  KIND/ID, e.g. counter/demo
          ACTION   an action's name (increase) or its JSON ('{"type":"add","title":"Buy milk"}')

        options:
          --json             one compact JSON object per line instead of indented text
          --token TOKEN      a JWT, sent as "Authorization: Bearer TOKEN" (default: $REACTORHUB_TOKEN)
          --ca-file PATH     for wss://, trust the certificate authorities in this PEM file too
          --insecure         for wss://, accept any certificate (testing only)
          --timeout SECONDS  give up connecting, joining or waiting for an answer after this long (default 10)
          -h, --help         print this help

        watch prints "REACTOR vVERSION" and the indented state at each change, and
        "REACTOR vVERSION pulse NAME VALUE" at each pulse; with --json each is one line:
        {"reactor":…,"version":…,"state":…} or {"reactor":…,"version":…,"pulse":…,"value":…}.
        It reconnects by itself (and says so on standard error) and ends on SIGINT or SIGTERM.

        exit status: 0 done, 1 refused or failed, 2 bad usage
        """

    /// Parses `arguments` (without the program name); nil means `--help`.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> CLIArguments? {
        var operands: [String] = []
        var json = false, insecure = false
        var token = environment["REACTORHUB_TOKEN"]
        var caFile: String?
        var timeout = 10.0
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": return nil
            case "--json": json = true
            case "--insecure": insecure = true
            case "--token": token = try value(argument)
            case "--ca-file": caFile = try value(argument)
            case "--timeout":
                let text = try value(argument)
                guard let seconds = Double(text), seconds > 0 else { throw UsageError(message: "--timeout must be a number of seconds above 0, got '\(text)'") }
                timeout = seconds
            default:
                if argument.hasPrefix("--") { throw UsageError(message: "unknown option '\(argument)'") }
                operands.append(argument)
            }
            index += 1
        }
        guard let first = operands.first else { throw UsageError(message: "missing command (watch, send or state)") }
        guard let command = Command(rawValue: first) else { throw UsageError(message: "unknown command '\(first)'; commands: watch, send, state") }
        let expected = command == .send ? 4 : 3
        guard operands.count == expected else {
            let shape = command == .send ? "send URL REACTOR ACTION" : "\(command.rawValue) URL REACTOR"
            throw UsageError(message: "\(command.rawValue) takes \(expected - 1) operands: \(shape)")
        }
        var arguments = CLIArguments(command: command, url: Self.normalizedURL(operands[1]), reactor: operands[2])
        arguments.action = command == .send ? operands[3] : nil
        arguments.json = json
        arguments.token = token
        arguments.caFile = caFile
        arguments.insecure = insecure
        arguments.timeout = timeout
        return arguments
    }

    /// `HOST:PORT` becomes `ws://HOST:PORT/ws`; URLs are kept.
    static func normalizedURL(_ text: String) -> String {
        text.contains("://") ? text : "ws://\(text)/ws"
    }
}
