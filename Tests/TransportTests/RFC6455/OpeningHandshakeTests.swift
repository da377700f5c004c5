import Testing
@testable import ReactorHubWebSocketServer

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
        var spaced = valid
        spaced.connection = "keep-alive,\tUpGrade "
        spaced.version = " 13\t"
        spaced.key = "\t dGhlIHNhbXBsZSBub25jZQ== "
        #expect(spaced.refusal == nil)
        var anyAlphabet = valid
        anyAlphabet.key = "AZaz09+/AAAAAAAAAAAAAB=="
        #expect(anyAlphabet.refusal == nil)
    }

    @Test func otherVersionsAre426WithTheVersionSpoken() {
        for version in ["8", "7", "12", "14", "13, 8", "013", "13\u{A0}"] {
            var request = valid
            request.version = version
            #expect(request.refusal?.status == 426)
            #expect(request.refusal?.body == "WebSocket version '\(version)' is not supported; this server speaks 13\n")
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
        var blankVersion = valid
        blankVersion.version = " \t"
        var upgradeInAWord = valid
        upgradeInAWord.connection = "upgrades, keep-alive"
        // Blank, URL-safe alphabet, 17 bytes, a space inside.
        let badKeys = ["   ", "dGhlIHNhbXBsZSBub25j-_==", "dGhlIHNhbXBsZSBub25jZQA=", "dGhlIHNhbXBs ZSBub25jZ=="]
        let withBadKeys = badKeys.map { key in
            var request = valid
            request.key = key
            return request
        }
        let requests = [post, noHost, noConnection, noKey, shortKey, longKey, noVersion, blankVersion, upgradeInAWord] + withBadKeys
        for request in requests {
            #expect(request.refusal?.status == 400, "\(request)")
        }
    }
}
