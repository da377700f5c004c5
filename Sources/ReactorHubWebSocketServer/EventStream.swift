import ReactorHubProtocol

/// The service thread's state for one open event stream (API.md "The event stream"): an
/// HTTP response kept open, written by `ServerCore+EventStream`. Only the service thread
/// touches it.
final class EventStream {
    let id: ConnectionID
    let wsi: OpaquePointer
    /// The socket, polled for the client's close.
    let fd: Int32
    var framing = EventStreamFraming()
    /// A close the server decided on, carried out from the writable callback.
    var pendingClose: Connection.PendingClose?
    var writableRequested = false
    /// When bytes were last written (`Keepalive.now()`): a comment is owed after silence.
    var lastWritten = Keepalive.now()
    var keepaliveOwed = false

    init(id: ConnectionID, wsi: OpaquePointer, fd: Int32) {
        self.id = id
        self.wsi = wsi
        self.fd = fd
    }
}
