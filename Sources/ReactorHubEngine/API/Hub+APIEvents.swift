import ReactorHubProtocol
import ReactorHubJSON

/// The event stream (API.md "The event stream"): checked here like any request, then
/// opened by the transport as one more connection, which the hub joins to the reactor
/// (resuming from `Last-Event-ID` like a WebSocket resume).
extension Hub {
    /// `GET /api/v1/reactors/KIND/ID/events`: the identity (`?token=` too: `EventSource`
    /// sends no headers), the `read` right and the instance's limits, then the answer that
    /// tells the transport to open the stream.
    func openEventStream(_ address: ReactorAddress, _ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let opened = apiIdentity(request, acceptsQueryToken: true)
            .flatMap { apiSlot(address, identity: $0, access: .read, peer: request.peerAddress) }
        if case .failure(let error) = opened { return respond(error.response) }
        let full = APIError(ProtocolError(.overloaded, "the server takes no more connections now (limits.maxConnections, or shutting down); retry later"))
        respond(HTTPResponse(
            status: 200, contentType: "text/event-stream", body: [],
            stream: EventStreamOpening(reactor: address, lastEventID: request.headers["last-event-id"], refusalBody: Self.bytes(full.body))
        ))
    }

    /// Opens the session of a stream the transport opened: no `hello`, one join, with a
    /// resume point when its `Last-Event-ID` names one.
    func streamOpened(_ connection: ConnectionInfo, _ stream: EventStreamOpening) {
        join(stream.reactor, since: Self.resumePoint(lastEventID: stream.lastEventID), ref: nil, from: connection.id)
    }

    /// `EPOCH:VERSION` (an event's id) as a resume point; nil for anything else.
    static func resumePoint(lastEventID: String?) -> ClientMessage.ResumePoint? {
        guard let text = lastEventID, let colon = text.lastIndex(of: ":"), colon != text.startIndex,
              let version = Int(text[text.index(after: colon)...]), version >= 0
        else { return nil }
        return ClientMessage.ResumePoint(epoch: String(text[..<colon]), version: version)
    }
}
