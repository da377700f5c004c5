import ReactorHubProtocol

/// How the engine's messages leave on an event stream (API.md "The event stream"), as a
/// value tested without sockets: each `snapshot`, `patch`, `pulse` and `presence` becomes an
/// event of that name whose `data:` is the message (one line of compact JSON) and whose
/// `id:` is the `EPOCH:VERSION` the client holds once it has it; a `resumed` only moves the
/// epoch and version (its missed patches follow as events); an `error` (a join refused
/// after the stream opened) is the last event; replies carry nothing here.
struct EventStreamFraming {
    /// What `append` did with a message.
    enum Outcome: Equatable {
        /// Written as an event.
        case event
        /// Nothing written.
        case skipped
        /// Written, and the stream must end after it (an `error`).
        case last
    }

    /// The epoch of the last snapshot or resume (empty before the first), as bytes.
    private(set) var epoch: [UInt8] = []
    /// The version the client holds after the events so far.
    private(set) var version = 0

    /// Appends `message` to `buffer` as an event, per its label.
    mutating func append(_ message: OutboundMessage, to buffer: inout [UInt8]) -> Outcome {
        let name: StaticString
        var outcome = Outcome.event
        switch message.label {
        case .snapshot(let epoch, let version):
            self.epoch = Array(epoch.utf8)
            self.version = version
            name = "snapshot"
        case .resumed(let epoch, let version):
            self.epoch = Array(epoch.utf8)
            self.version = version
            return .skipped
        case .patch(let version):
            self.version = version
            name = "patch"
        case .pulse:
            name = "pulse"
        case .presence:
            name = "presence"
        case .error:
            name = "error"
            outcome = .last
        case .reply:
            return .skipped
        }
        Self.appendLine("event: ", name, to: &buffer)
        if !epoch.isEmpty {
            buffer += Self.idPrefix
            buffer += epoch
            buffer.append(UInt8(ascii: ":"))
            Self.appendDecimal(version, to: &buffer)
            buffer.append(Self.newline)
        }
        buffer += Self.dataPrefix
        message.withBytes { buffer += $0 }
        buffer += [Self.newline, Self.newline]
        return outcome
    }

    /// A comment line (`: TEXT`) and the blank line after it: ignored by clients, it keeps
    /// proxies from closing an idle stream.
    static func comment(_ text: String) -> [UInt8] {
        Array(": \(text)\n\n".utf8)
    }

    private static let newline = UInt8(ascii: "\n")
    private static let idPrefix = Array("id: ".utf8)
    private static let dataPrefix = Array("data: ".utf8)

    private static func appendLine(_ field: StaticString, _ value: StaticString, to buffer: inout [UInt8]) {
        field.withUTF8Buffer { buffer += $0 }
        value.withUTF8Buffer { buffer += $0 }
        buffer.append(newline)
    }

    /// `value`'s decimal digits (versions are never negative), most significant first,
    /// without a temporary array: this runs once per event per stream.
    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        var rest = max(value, 0)
        var divisor = 1
        while divisor <= rest / 10 { divisor *= 10 }
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        } while divisor > 0
    }
}
