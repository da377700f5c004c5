package import ReactorHubJSON

/// Builds the server's messages (PROTOCOL.md "Server to client") as ready-to-send frames.
/// Each is written once into one buffer, whatever the number of receivers.
package enum ServerMessage {
    /// Who the connection is, as `hello` says it.
    package enum Identity: Sendable {
        /// No identity rules: nothing is said.
        case open
        /// A token is required and none was given yet: `"auth":"required"`.
        case awaiting
        /// No token, anonymous rights: `"user":null`.
        case anonymous
        /// A verified token's `sub`.
        case user(String)
    }

    private static func frame(capacity: Int = 128, _ body: (inout JSONWriter) -> Void) -> OutboundMessage {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(capacity)
        body(&writer)
        return OutboundMessage(writer.bytes)
    }

    /// The ref as the client wrote it, byte for byte.
    private static func writeRef(_ ref: Ref?, _ writer: inout JSONWriter) {
        guard let ref else { return }
        writer.writeRaw(#","ref":"#)
        writer.bytes.append(contentsOf: ref.json)
    }

    /// `{"type":"hello","protocol":1,"server":…,"session":…[,"node":…][,"user":…|"auth":"required"],"reactors":{…}}`
    package static func hello(server: String, session: String, identity: Identity, node: String? = nil, reactors: [UInt8]) -> OutboundMessage {
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
    package static func authed(ref: Ref?, user: String, expires: Int) -> OutboundMessage {
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

    /// `{"type":"snapshot","reactor":…,"ref":…,"epoch":…,"version":…,"state":{…}}`
    package static func snapshot(
        _ address: String, ref: Ref?, epoch: String, version: Int, state: [UInt8], extra: [UInt8] = []
    ) -> OutboundMessage {
        frame(capacity: state.count + extra.count + 128) { writer in
            writer.writeRaw(#"{"type":"snapshot","reactor":"#)
            writer.writeString(address)
            writeRef(ref, &writer)
            writer.writeRaw(#","epoch":"#)
            writer.writeString(epoch)
            writer.writeRaw(#","version":"#)
            writer.writeInt(version)
            writer.writeRaw(#","state":"#)
            writer.bytes.append(contentsOf: state)
            writer.bytes.append(contentsOf: extra)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"resumed","reactor":…,"ref":…,"epoch":…,"version":…}`
    package static func resumed(_ address: String, ref: Ref?, epoch: String, version: Int, extra: [UInt8] = []) -> OutboundMessage {
        frame(capacity: extra.count + 128) { writer in
            writer.writeRaw(#"{"type":"resumed","reactor":"#)
            writer.writeString(address)
            writeRef(ref, &writer)
            writer.writeRaw(#","epoch":"#)
            writer.writeString(epoch)
            writer.writeRaw(#","version":"#)
            writer.writeInt(version)
            writer.bytes.append(contentsOf: extra)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    // `patch` frames are written by `PatchFrame`, which keeps what merging needs.

    /// `{"type":"pulse","reactor":…,"version":…,"name":…,"value":…}`
    package static func pulse(_ address: String, version: Int, name: String, value: JSONValue) -> OutboundMessage {
        frame { writer in
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
    package static func left(_ address: String, ref: Ref?, reason: String? = nil) -> OutboundMessage {
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
    package static func ack(_ address: String, ref: Ref?, version: Int, applied: Int) -> OutboundMessage {
        frame { writer in
            writer.writeRaw(#"{"type":"ack","reactor":"#)
            writer.writeString(address)
            writeRef(ref, &writer)
            writer.writeRaw(#","version":"#)
            writer.writeInt(version)
            writer.writeRaw(#","applied":"#)
            writer.writeInt(applied)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"error","ref":…,"code":…,"message":…}`
    package static func error(_ error: ProtocolError, ref: Ref?) -> OutboundMessage {
        frame { writer in
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
    package static func pong(ref: Ref?) -> OutboundMessage {
        frame { writer in
            writer.writeRaw(#"{"type":"pong""#)
            writeRef(ref, &writer)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }
}
