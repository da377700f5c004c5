import Testing
@testable import Transport

@Suite("Opening handshake checks (OpeningHandshake)")
struct OpeningHandshakeTests {
    let valid = OpeningHandshake(
        isGet: true, host: "example.test", connection: "Upgrade", key: "dGhlIHNhbXBsZSBub25jZQ==", version: "13"
    )

    @Test func wellFormedHandshakeIsAllowed() {
        #expect(valid.refusal == nil)
        var listed = valid
        listed.connection = "keep-alive, UPGRADE"
        #expect(listed.refusal == nil)
    }

    @Test func otherVersionsAre426WithTheVersionSpoken() {
        for version in ["8", "7", "12", "14", "13, 8"] {
            var request = valid
            request.version = version
            #expect(request.refusal?.status == 426)
            #expect(request.refusal?.headers == [HTTPHeader(name: "sec-websocket-version:", value: "13")])
        }
    }

    @Test func malformedHandshakesAre400() {
        var post = valid
        post.isGet = false
        var noHost = valid
        noHost.host = nil
        var noConnection = valid
        noConnection.connection = nil
        var noKey = valid
        noKey.key = nil
        var shortKey = valid
        shortKey.key = "dGhlIHNhbXBsZSBub25jZQ"
        var longKey = valid
        longKey.key = "dGhlIHNhbXBsZSBub25jZSE="
        var noVersion = valid
        noVersion.version = nil
        for request in [post, noHost, noConnection, noKey, shortKey, longKey, noVersion] {
            #expect(request.refusal?.status == 400, "\(request)")
        }
    }
}
