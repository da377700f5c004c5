import Foundation
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubClient

/// Options for clients under test: quick reconnects, no jitter.
func testOptions(_ socket: any ClientSocket) -> HubClientOptions {
    var options = HubClientOptions()
    options.socket = socket
    options.initialDelay = .milliseconds(5)
    options.maxDelay = .milliseconds(40)
    options.jitter = 0
    return options
}

/// Connects a client through `socket`, playing the server's hello on its first connection.
func connectClient(
    _ socket: FakeSocket,
    token: TokenSource? = nil,
    session: String = "c1",
    hello extra: String = "",
    configure: (inout HubClientOptions) -> Void = { _ in }
) async throws -> (HubClient, FakeConnection) {
    var options = testOptions(socket)
    configure(&options)
    let fixed = options
    async let client = HubClient.connect("ws://fake/ws", token: token, options: fixed, logger: clientTestLogger)
    let connection = try await socket.accept(session: session, hello: extra)
    return (try await client, connection)
}

/// An unsigned JWT whose payload is `claims` (the client reads `exp`, never verifies).
func makeToken(_ claims: [String: Any]) -> String {
    func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    let header = encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let payload = encode(try! JSONSerialization.data(withJSONObject: claims))
    return "\(header).\(payload).c2lnbmF0dXJl"
}

extension JSONValue {
    /// Compact JSON text, for messages in expectations.
    var text: String {
        var writer = JSONWriter()
        writer.writeValue(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
