import ReactorHubProtocol
import ReactorHubJSON
import TestSupport
import Testing
@testable import ReactorHubEngine

@Suite("Bursts and merged frames")
struct CoalescingTests {
    /// A reader that stops reading while 2,000 changes are made gets, once it reads again,
    /// fewer frames than versions (the piled-up patches were merged), every frame starting
    /// at the version it holds, and the exact final state.
    @Test func aReaderThatFellBehindGetsMergedFramesThatApplyInOrder() async throws {
        try await withHub { _, server in
            let writer = try await server.connect()
            let raw = try await server.rawClient()
            let reader = try await ProtocolClient(connection: raw)
            try await writer.join("doc/flood")
            try await reader.join("doc/flood")
            raw.pauseReading(socketCapacity: 4096)
            let count = 2000
            for n in 1...count {
                try await writer.send(#"{"type":"action","reactor":"doc/flood","action":{"type":"set","path":"/k\#(n % 50)","value":\#(n)}}"#)
            }
            // The writer sees every version; then the reader reads again.
            var written = 0
            while written < count {
                let message = try await writer.next()
                if message["type"] == "patch" { written = try #require(message["version"]?.intValue) }
            }
            raw.resumeReading()
            var state: JSONValue = .object([:])
            var version = 0
            var frames = 0
            var spanning = 0
            while version < count {
                let message = try await reader.next()
                guard message["type"] == "patch" else { continue }
                let base = message["base"]?.intValue ?? (message["version"]!.intValue! - 1)
                #expect(base == version)
                state = try JSONPatch.apply(try #require(message["patch"]), to: state)
                version = try #require(message["version"]?.intValue)
                frames += 1
                if message["base"] != nil { spanning += 1 }
            }
            #expect(version == count)
            #expect(state["k0"] == 2000)
            #expect(state["k49"] == 1999)
            #expect(frames < count / 4)
            #expect(spanning > 0)
        }
    }

    @Test func mergedFramesConcatenateTheirOperationsInTurn() {
        let merged = PatchFrame.merge([
            PatchFrameFactory.make(4, #"[{"op":"add","path":"/a","value":1}]"#),
            PatchFrameFactory.make(5, #"[{"op":"remove","path":"/a"},{"op":"add","path":"/b","value":[]}]"#),
            PatchFrameFactory.make(6, "[]"),
        ])
        #expect(merged.message.text == #"{"type":"patch","reactor":"doc/x","version":6,"base":3,"patch":[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/a"},{"op":"add","path":"/b","value":[]}]}"#)
        #expect((merged.base, merged.version) == (3, 6))
    }
}
