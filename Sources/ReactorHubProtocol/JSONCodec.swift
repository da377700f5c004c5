package import ReactorHubJSON

/// The JSON codec: the server's messages as PROTOCOL.md writes them ("Server to client"),
/// ready-to-send text frames. Each is written once into one buffer, whatever the number of
/// receivers, with the headroom its transport asked for.
package struct JSONCodec: MessageCodec {
    package let headroom: Int

    /// A codec whose frames have `headroom` writable bytes in front (the transport's
    /// `frameHeadroom`).
    package init(headroom: Int = OutboundMessage.standardHeadroom) {
        self.headroom = headroom
    }

    private func frame(capacity: Int = 128, label: MessageLabel = .reply, _ body: (inout JSONWriter) -> Void) -> OutboundMessage {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(capacity)
        body(&writer)
        return OutboundMessage(writer.bytes, headroom: headroom, label: label)
    }

    package func message(_ bytes: some Collection<UInt8>, label: MessageLabel) -> OutboundMessage {
        OutboundMessage(bytes, headroom: headroom, label: label)
    }

    /// The ref as the client wrote it, byte for byte.
    private func writeRef(_ ref: Ref?, _ writer: inout JSONWriter) {
        guard let ref else { return }
        writer.writeRaw(#","ref":"#)
        writer.bytes.append(contentsOf: ref.json)
    }

    /// `{"type":"hello","protocol":1,"server":…,"session":…[,"node":…][,"user":…|"auth":"required"],"reactors":{…}}`
    package func hello(server: String, session: String, identity: HelloIdentity, node: String? = nil, reactors: [UInt8]) -> OutboundMessage {
        frame(capacity: reactors.count + 128) { writer in
            writer.writeRaw(#"{"type":"hello","protocol":1,"server":"#)
            writer.writeString(server)
            writer.writeRaw(#","session":"#)
            writer.writeString(session)
            if let node {
                writer.writeRaw(#","node":"#)
                writer.writeString(node)
            }
            switch identity {
            case .open:
                break
            case .awaiting:
                writer.writeRaw(#","auth":"required""#)
            case .anonymous:
                writer.writeRaw(#","user":null"#)
            case .user(let subject):
                writer.writeRaw(#","user":"#)
                writer.writeString(subject)
            }
            writer.writeRaw(#","reactors":"#)
            writer.bytes.append(contentsOf: reactors)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"authed","ref":…,"user":…,"expires":…}`
    package func authed(ref: Ref?, user: String, expires: Int) -> OutboundMessage {
        frame { writer in
            writer.writeRaw(#"{"type":"authed""#)
            writeRef(ref, &writer)
            writer.writeRaw(#","user":"#)
            writer.writeString(user)
            writer.writeRaw(#","expires":"#)
            writer.writeInt(expires)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"snapshot","reactor":…,"ref":…,"epoch":…,"version":…[,"sum":…],"state":{…},"presence":{…}}`
    package func snapshot(
        _ address: String, ref: Ref?, epoch: String, version: Int, state: [UInt8], presence: PresenceSnapshot, sum: String?
    ) -> OutboundMessage {
        frame(capacity: state.count + presence.byteCount + 128, label: .snapshot(epoch: epoch, version: version)) { writer in
            writeHead("snapshot", address, ref: ref, epoch: epoch, version: version, sum: sum, &writer)
            writer.writeRaw(#","state":"#)
            writer.bytes.append(contentsOf: state)
            write(presence, &writer)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"resumed","reactor":…,"ref":…,"epoch":…,"version":…[,"sum":…],"presence":{…}}`
    package func resumed(_ address: String, ref: Ref?, epoch: String, version: Int, presence: PresenceSnapshot, sum: String?) -> OutboundMessage {
        frame(capacity: presence.byteCount + 128, label: .resumed(epoch: epoch, version: version)) { writer in
            writeHead("resumed", address, ref: ref, epoch: epoch, version: version, sum: sum, &writer)
            write(presence, &writer)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":TYPE,"reactor":…,"ref":…,"epoch":…,"version":…[,"sum":…]`, what a join's answers begin with.
    private func writeHead(
        _ type: StaticString, _ address: String, ref: Ref?, epoch: String, version: Int, sum: String?, _ writer: inout JSONWriter
    ) {
        writer.writeRaw(#"{"type":""#)
        writer.writeRaw(type)
        writer.writeRaw(#"","reactor":"#)
        writer.writeString(address)
        writeRef(ref, &writer)
        writer.writeRaw(#","epoch":"#)
        writer.writeString(epoch)
        writer.writeRaw(#","version":"#)
        writer.writeInt(version)
        if let sum {
            writer.writeRaw(#","sum":"#)
            writer.writeString(sum)
        }
    }

    package func patch(_ address: String, version: Int, base: Int, operations: some Collection<UInt8>, sum: String?) -> PatchFrame {
        PatchFrame(address: address, version: version, base: base, operations: operations, sum: sum, headroom: headroom)
    }

    package func merge(_ frames: ArraySlice<PatchFrame>) -> PatchFrame {
        PatchFrame.merge(frames, headroom: headroom)
    }

    /// `{"type":"pulse","reactor":…,"version":…,"name":…,"value":…}`
    package func pulse(_ address: String, version: Int, name: String, value: JSONValue) -> OutboundMessage {
        frame(label: .pulse(version: version)) { writer in
            writer.writeRaw(#"{"type":"pulse","reactor":"#)
            writer.writeString(address)
            writer.writeRaw(#","version":"#)
            writer.writeInt(version)
            writer.writeRaw(#","name":"#)
            writer.writeString(name)
            writer.writeRaw(#","value":"#)
            writer.writeValue(value)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"left","reactor":…,"ref":…}`, or unsolicited with a `reason`.
    package func left(_ address: String, ref: Ref?, reason: String? = nil) -> OutboundMessage {
        frame { writer in
            writer.writeRaw(#"{"type":"left","reactor":"#)
            writer.writeString(address)
            writeRef(ref, &writer)
            if let reason {
                writer.writeRaw(#","reason":"#)
                writer.writeString(reason)
            }
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"ack","reactor":…,"ref":…,"version":…,"applied":…}`: `applied` is the
    /// version once the action's immediate mutations are applied (PROTOCOL.md "Acks").
    package func ack(_ address: String, ref: Ref?, version: Int, applied: Int) -> OutboundMessage {
        // One per action: sized first and written in place (a writer's buffer and its
        // copy fewer).
        let reactor = QuotedText(address)
        let prefix: StaticString = #"{"type":"ack","reactor":"#
        let count = prefix.utf8CodeUnitCount + reactor.count
            + (ref.map { #","ref":"#.utf8.count + $0.json.count } ?? 0)
            + #","version":"#.utf8.count + PlacedBytes.digits(version)
            + #","applied":"#.utf8.count + PlacedBytes.digits(applied) + 1
        return PlacedBytes.message(count: count, headroom: headroom, label: .reply) { out in
            out.append(prefix)
            out.append(reactor)
            if let ref {
                out.append(#","ref":"#)
                out.append(ref.json)
            }
            out.append(#","version":"#)
            out.append(version)
            out.append(#","applied":"#)
            out.append(applied)
            out.append("}")
        }
    }

    /// `{"type":"error","ref":…,"code":…,"message":…}`
    package func error(_ error: ProtocolError, ref: Ref?) -> OutboundMessage {
        frame(label: .error) { writer in
            writer.writeRaw(#"{"type":"error""#)
            writeRef(ref, &writer)
            writer.writeRaw(#","code":"#)
            writer.writeString(error.code.rawValue)
            writer.writeRaw(#","message":"#)
            writer.writeString(error.message)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"pong","ref":…}`
    package func pong(ref: Ref?) -> OutboundMessage {
        frame { writer in
            writer.writeRaw(#"{"type":"pong""#)
            writeRef(ref, &writer)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }
}

extension JSONCodec {
    package func presence(_ address: String, _ change: PresenceChange) -> OutboundMessage {
        frame(label: .presence) { writer in
            writer.writeRaw(#"{"type":"presence","reactor":"#)
            writer.writeString(address)
            switch change {
            case .count(let count):
                writer.writeRaw(#","presenceCount":"#)
                writer.writeInt(count)
            case .changes(let joins, let leaves):
                writer.writeRaw(#","joins":"#)
                write(joins, &writer)
                writer.writeRaw(#","leaves":["#)
                for (index, session) in leaves.enumerated() {
                    if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                    writer.writeString(session)
                }
                writer.writeByte(UInt8(ascii: "]"))
            }
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `,"presence":{…}` or `,"presenceCount":N`.
    private func write(_ presence: PresenceSnapshot, _ writer: inout JSONWriter) {
        switch presence {
        case .count(let count):
            writer.writeRaw(#","presenceCount":"#)
            writer.writeInt(count)
        case .entries(let entries):
            writer.writeRaw(#","presence":"#)
            write(entries, &writer)
        }
    }

    /// `{SESSION:{"user":U,"state":S},…}`.
    private func write(_ entries: [(session: String, entry: PresenceEntry)], _ writer: inout JSONWriter) {
        writer.writeByte(UInt8(ascii: "{"))
        for (index, item) in entries.enumerated() {
            if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
            writer.writeString(item.session)
            writer.writeRaw(#":{"user":"#)
            if let user = item.entry.user { writer.writeString(user) } else { writer.writeRaw("null") }
            writer.writeRaw(#","state":"#)
            writer.bytes.append(contentsOf: item.entry.state)
            writer.writeByte(UInt8(ascii: "}"))
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    package func duplicate(of reply: [UInt8], ref: Ref?) -> OutboundMessage? {
        guard case .object(var object)? = try? JSONParser().parse(reply) else { return nil }
        return frame { writer in
            writer.writeByte(UInt8(ascii: "{"))
            var first = true
            func member(_ key: String, _ value: JSONValue) {
                if !first { writer.writeByte(UInt8(ascii: ",")) }
                first = false
                writer.writeKey(key)
                writer.writeValue(value)
            }
            if let type = object.removeValue(forKey: "type") { member("type", type) }
            if let reactor = object.removeValue(forKey: "reactor") { member("reactor", reactor) }
            _ = object.removeValue(forKey: "ref")
            if let ref {
                if !first { writer.writeByte(UInt8(ascii: ",")) }
                first = false
                writer.writeRaw(#""ref":"#)
                writer.bytes.append(contentsOf: ref.json)
            }
            for (key, value) in object { member(key, value) }
            member("duplicate", true)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }
}

extension JSONCodec {
    package func actionReply(_ message: OutboundMessage) -> ActionReply? {
        guard case .object(let object)? = message.withBytes({ try? JSONParser().parse(Array($0)) }) else { return nil }
        let duplicate = object["duplicate"]?.boolValue ?? false
        switch object["type"]?.stringValue {
        case "ack":
            guard let version = object["version"]?.intValue, let applied = object["applied"]?.intValue else { return nil }
            return .ack(version: version, applied: applied, duplicate: duplicate)
        case "error":
            guard let code = object["code"]?.stringValue, let text = object["message"]?.stringValue else { return nil }
            return .error(ProtocolError(ProtocolError.Code(rawValue: code), text), duplicate: duplicate)
        default:
            return nil
        }
    }
}
