import Hub
import JSON
import TestSupport
import Testing

@Suite("Bursts under load")
struct CoalescingTests {
    @Test func aFloodArrivesConsecutiveAndSomeBurstsShareOneFrame() async throws {
        try await withHub { _, port in
            let writer = try await ProtocolClient.connect(port: port)
            let reader = try await ProtocolClient.connect(port: port)
            try await writer.join("doc/flood")
            try await reader.join("doc/flood")
            let count = 2000
            for n in 1...count {
                try await writer.send(#"{"type":"action","reactor":"doc/flood","action":{"type":"set","path":"/k\#(n % 50)","value":\#(n)}}"#)
            }
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
            // Not asserted as a speed: only that the mechanism is exercised and consistent.
            #expect(frames <= count)
            print("flood: \(count) versions in \(frames) frames, \(spanning) spanning several versions")
        }
    }

    @Test func concatenatedPatchesApplyInTurn() {
        let joined = ReactorInstanceProbe.concatenate([Array(#"[{"op":"add","path":"/a","value":1}]"#.utf8), Array(#"[{"op":"remove","path":"/a"},{"op":"add","path":"/b","value":[]}]"#.utf8)])
        #expect(String(decoding: joined, as: UTF8.self) == #"[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/a"},{"op":"add","path":"/b","value":[]}]"#)
    }
}
