import Foundation
import ReactorHubJSON
import ReactorHubClient

/// What the commands print, indented for people or one compact JSON object per line.
struct Output {
    let json: Bool
    /// The command line, for the advice added to errors (`ErrorAdvice`).
    var arguments: CLIArguments?

    func state(_ reactor: String, _ revision: Revision) {
        if json {
            line(["reactor": .string(reactor), "version": .int(revision.version), "state": revision.state])
        } else {
            Self.standardOutput("\(reactor) v\(revision.version)\n" + Self.pretty(revision.state))
        }
    }

    func pulse(_ reactor: String, version: Int, name: String, value: JSONValue) {
        if json {
            line(["reactor": .string(reactor), "version": .int(version), "pulse": .string(name), "value": value])
        } else {
            Self.standardOutput("\(reactor) v\(version) pulse \(name) \(Self.compact(value))")
        }
    }

    func ack(_ reactor: String, _ ack: ActionAck) {
        if json {
            var object: JSONObject = ["type": "ack", "reactor": .string(reactor), "version": .int(ack.version), "applied": .int(ack.applied)]
            if ack.duplicate { object.updateValue(true, forKey: "duplicate") }
            line(.object(object))
        } else {
            Self.standardOutput("ack: \(reactor) accepted the action at version \(ack.version), applied at \(ack.applied)\(ack.duplicate ? " (a duplicate)" : "")")
        }
    }

    /// A refusal or failure: a JSON line on standard output with --json, a sentence on
    /// standard error without; with the advice that fits it (`ErrorAdvice`).
    func error(_ error: HubClientError) {
        let error = arguments.map { ErrorAdvice.advised(error, for: $0) } ?? error
        if json {
            var object: JSONObject = ["type": "error", "code": .string(error.code.rawValue), "message": .string(error.message)]
            if let reactor = error.reactor { object.updateValue(.string(reactor), forKey: "reactor") }
            line(.object(object))
        } else {
            Self.standardError("error \(error.code): \(error.message)")
        }
    }

    func line(_ value: JSONValue) {
        Self.standardOutput(Self.compact(value))
    }

    /// Writes a line at once (no buffering: `watch` is read line by line by other programs).
    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func compact(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Indented JSON: two spaces per level, members in their order.
    static func pretty(_ value: JSONValue, indent: Int = 0) -> String {
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        switch value {
        case .object(let object) where !object.isEmpty:
            let members = object.map { inner + compact(.string($0.key)) + ": " + pretty($0.value, indent: indent + 1) }
            return "{\n" + members.joined(separator: ",\n") + "\n" + outer + "}"
        case .array(let elements) where !elements.isEmpty:
            let items = elements.map { inner + pretty($0, indent: indent + 1) }
            return "[\n" + items.joined(separator: ",\n") + "\n" + outer + "]"
        default:
            return compact(value)
        }
    }
}
