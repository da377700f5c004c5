import ReactorHubProtocol
import ReactorHubJSON

/// The API's reads (API.md): an instance's state, with its `ETag`, and the patches since a
/// version. Each creates the instance like a join would, and answers once it is loaded and
/// holds every change committed before the request (on any node: read after ack).
extension Hub {
    /// `GET /api/v1/reactors/KIND/ID`: `{"reactor","epoch","version","state"}` with
    /// `ETag: "E:V"`; 304 when `If-None-Match` names that tag.
    func readState(_ address: ReactorAddress, _ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        visit(address, request, respond: respond) { instance in
            let reading = instance.read()
            let tag = "\"\(reading.epoch):\(reading.version)\""
            let etag = HTTPField("ETag", tag)
            if let condition = request.headers["if-none-match"], Self.entityTags(condition, match: tag) {
                return HTTPResponse(status: 304, contentType: "application/json", body: [], headers: [etag])
            }
            var writer = JSONWriter()
            writer.bytes.reserveCapacity(reading.state.count + 96)
            writer.writeRaw(#"{"reactor":"#)
            writer.writeString(address.description)
            writer.writeRaw(#","epoch":"#)
            writer.writeString(reading.epoch)
            writer.writeRaw(#","version":"#)
            writer.writeInt(reading.version)
            writer.writeRaw(#","state":"#)
            writer.bytes += reading.state
            writer.writeByte(UInt8(ascii: "}"))
            return HTTPResponse(status: 200, contentType: "application/json", body: writer.bytes, headers: [etag])
        }
    }

    /// `GET …/patches?since=V&epoch=E`: every patch after V that history still holds, or
    /// 410 `history_gone` with the current epoch and version.
    func readPatches(_ address: ReactorAddress, _ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let sinceText = request.query["since"], let since = Int(sinceText), since >= 0,
              let epoch = request.query["epoch"], !epoch.isEmpty
        else {
            return respond(APIError(ProtocolError(
                .badRequest, "expected ?since=VERSION&epoch=EPOCH: the version (an integer >= 0) and epoch a client holds, from a GET of the reactor or an event's id"
            )).response)
        }
        visit(address, request, respond: respond) { instance in
            let missed = instance.missed(since: ClientMessage.ResumePoint(epoch: epoch, version: since))
            guard let frames = missed.frames else {
                var gone = APIError(status: 410, ProtocolError(
                    .historyGone,
                    "the history of \(address) no longer reaches back to \(epoch):\(since) (it is at \(missed.epoch):\(missed.version)); GET the reactor's state instead"
                ))
                gone.extra = [("epoch", .string(missed.epoch)), ("version", .int(missed.version))]
                return gone.response
            }
            var writer = JSONWriter()
            writer.writeRaw(#"{"epoch":"#)
            writer.writeString(missed.epoch)
            writer.writeRaw(#","version":"#)
            writer.writeInt(missed.version)
            writer.writeRaw(#","patches":["#)
            for (index, frame) in frames.enumerated() {
                if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                writer.writeRaw(#"{"version":"#)
                writer.writeInt(frame.version)
                if frame.base != frame.version - 1 {
                    writer.writeRaw(#","base":"#)
                    writer.writeInt(frame.base)
                }
                writer.writeRaw(#","patch":"#)
                frame.withOperations { writer.bytes += $0 }
                writer.writeByte(UInt8(ascii: "}"))
            }
            writer.writeRaw("]}")
            return .json(200, writer.bytes)
        }
    }

    /// Answers with what `answer` makes of the instance of `address` once it is ready,
    /// after the identity and the `read` right are checked.
    private func visit(
        _ address: ReactorAddress, _ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void,
        answer: @escaping @Sendable (any HubInstance) -> HTTPResponse
    ) {
        let slot: InstanceSlot
        switch apiIdentity(request).flatMap({ apiSlot(address, identity: $0, access: .read, peer: request.peerAddress) }) {
        case .failure(let error): return respond(error.response)
        case .success(let found): slot = found
        }
        forward(.visit { result in
            switch result {
            case .success(let instance): instance.catchUp { respond(answer(instance)) }
            case .failure(let error): respond(APIError(error).response)
            }
        }, to: slot)
    }

    /// Whether an `If-None-Match` list (`"a", W/"b"`, or `*`) names `tag` (weak comparison).
    static func entityTags(_ condition: String, match tag: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var text = candidate.trimmingCharacters(in: .whitespaces)
            if text == "*" { return true }
            if text.hasPrefix("W/") { text.removeFirst(2) }
            return text == tag
        }
    }
}
