import ReactorHubJSON

/// The client's messages (PROTOCOL.md, "Client to server"), written as compact JSON.
enum ClientFrames {
    static func join(_ address: String, ref: Int, since: (epoch: String, version: Int)?, checksums: Bool = false) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeRaw(#"{"type":"join","reactor":"#)
        writer.writeString(address)
        writer.writeRaw(#","ref":"#)
        writer.writeInt(ref)
        if checksums {
            writer.writeRaw(#","checksums":true"#)
        }
        if let since {
            writer.writeRaw(#","since":{"epoch":"#)
            writer.writeString(since.epoch)
            writer.writeRaw(#","version":"#)
            writer.writeInt(since.version)
            writer.writeRaw("}")
        }
        writer.writeRaw("}")
        return writer.bytes
    }

    static func leave(_ address: String, ref: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeRaw(#"{"type":"leave","reactor":"#)
        writer.writeString(address)
        writer.writeRaw(#","ref":"#)
        writer.writeInt(ref)
        writer.writeRaw("}")
        return writer.bytes
    }

    static func action(_ address: String, payload: JSONValue, ref: Int, id: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeRaw(#"{"type":"action","reactor":"#)
        writer.writeString(address)
        writer.writeRaw(#","action":"#)
        writer.writeValue(payload)
        writer.writeRaw(#","ref":"#)
        writer.writeInt(ref)
        writer.writeRaw(#","id":"#)
        writer.writeString(id)
        writer.writeRaw("}")
        return writer.bytes
    }

    static func presence(_ address: String, state: JSONValue?, ref: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeValue(.object(["type": "presence", "reactor": .string(address), "state": state ?? .null, "ref": .int(ref)]))
        return writer.bytes
    }

    static func ping(ref: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeRaw(#"{"type":"ping","ref":"#)
        writer.writeInt(ref)
        writer.writeRaw("}")
        return writer.bytes
    }

    static func auth(token: String, ref: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeRaw(#"{"type":"auth","token":"#)
        writer.writeString(token)
        writer.writeRaw(#","ref":"#)
        writer.writeInt(ref)
        writer.writeRaw("}")
        return writer.bytes
    }
}
