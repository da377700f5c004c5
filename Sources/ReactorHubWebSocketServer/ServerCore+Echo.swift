import ReactorHubLibWebSockets
import ReactorHubLogging

/// The echo path (`TransportConfiguration.echoPath`): every text and binary message comes
/// back as it was sent, on the service thread, without the layer above. It exists for
/// diagnostics and conformance suites (Autobahn's fuzzing client needs an echo server).
extension ServerCore {
    /// Whether an upgrade to `path` is one to the echo path.
    func isEchoPath(_ path: String) -> Bool {
        configuration.echoPath.map { $0 == path } ?? false
    }

    /// Queues a whole message to be written back.
    func echo(_ message: [UInt8], isBinary: Bool, on connection: Connection) -> Int32 {
        connection.echo?.append(message, isBinary: isBinary)
        if connection.echo?.isFull == true, !connection.readingPaused {
            connection.readingPaused = true
            LWS.setReceiving(connection.wsi, false)
        }
        requestWritable(connection)
        return 0
    }

    /// Writes queued echoes until none waits or the socket would block.
    func writeEchoes(_ connection: Connection) -> Int32 {
        while true {
            if let close = connection.closeToSend, !close.afterFlush || connection.echo?.isEmpty != false {
                return closeNow(connection, code: close.code, reason: close.reason)
            }
            guard let item = connection.echo?.next() else { break }
            let frame = wireFrame(item.message, on: connection, binary: item.isBinary)
            let written = frame.compressed
                ? (writeCompressed(connection, frame.message) ? 0 : -1)
                : item.isBinary
                ? LWS.writeBinary(connection.wsi, item.message.payloadPointer, item.message.count)
                : LWS.writeText(connection.wsi, item.message.payloadPointer, item.message.count)
            if written < 0 {
                logger.debug("echo write failed; closing", metadata: ["session": connection.id.description])
                return -1
            }
            if LWS.sendPipeChoked(connection.wsi) {
                requestWritable(connection)
                break
            }
        }
        if connection.readingPaused, connection.echo?.isFull == false {
            connection.readingPaused = false
            LWS.setReceiving(connection.wsi, true)
        }
        return 0
    }
}
