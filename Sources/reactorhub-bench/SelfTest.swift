/// `reactorhub-bench selftest`: the frame scanner against the shapes of frames it must
/// read (one version, several versions with `base` either as a list of ops or collapsed,
/// leaf ops, a snapshot, a mirrored action), and the spread of `--reactors`
/// (`SelfTest+Layout.swift`). Exit status 0 when all pass.
enum SelfTest {
    struct Case {
        var name: String
        var frame: String
        var version: Int?
        var base: Int?
        var samples: [(sender: Int, seq: Int, t: UInt64)]
        var snapshot = false
    }

    static let cases: [Case] = [
        Case(
            name: "one version",
            frame: #"{"type":"patch","reactor":"doc/b1","version":42,"patch":[{"op":"replace","path":"/s0","value":{"t":123456789,"seq":7,"pad":"xx"}}]}"#,
            version: 42, base: 41, samples: [(0, 7, 123_456_789)]
        ),
        Case(
            name: "several versions, one op each (base)",
            frame: #"{"type":"patch","reactor":"doc/b1","version":45,"base":42,"patch":[{"op":"replace","path":"/s0","value":{"t":11,"seq":8,"pad":"x"}},{"op":"replace","path":"/s1","value":{"t":12,"seq":3,"pad":"x"}},{"op":"replace","path":"/s0","value":{"t":13,"seq":9,"pad":"x"}}]}"#,
            version: 45, base: 42, samples: [(0, 8, 11), (1, 3, 12), (0, 9, 13)]
        ),
        Case(
            name: "several versions collapsed to the last value (base)",
            frame: #"{"type":"patch","reactor":"doc/b1","base":40,"version":45,"patch":[{"op":"replace","path":"/s0","value":{"t":99,"seq":12,"pad":"x"}}]}"#,
            version: 45, base: 40, samples: [(0, 12, 99)]
        ),
        Case(
            name: "leaf ops",
            frame: #"{"type":"patch","reactor":"doc/b1","version":3,"patch":[{"op":"replace","path":"/s2/t","value":555},{"op":"replace","path":"/s2/seq","value":4},{"op":"replace","path":"/s3/seq","value":6},{"op":"replace","path":"/s3/t","value":777}]}"#,
            version: 3, base: 2, samples: [(2, 4, 555), (3, 6, 777)]
        ),
        Case(
            name: "first write (add)",
            frame: #"{"type":"patch","reactor":"doc/b1","version":1,"patch":[{"op":"add","path":"/s10","value":{"t":5,"seq":0,"pad":"xxxx"}}]}"#,
            version: 1, base: 0, samples: [(10, 0, 5)]
        ),
        Case(
            name: "mirrored action",
            frame: #"{"type":"action","reactor":"doc/b1","action":{"type":"set","path":"/s1","value":{"t":42,"seq":17,"pad":"xxx"}}}"#,
            version: nil, base: nil, samples: [(1, 17, 42)]
        ),
        Case(
            name: "snapshot",
            frame: #"{"type":"snapshot","reactor":"doc/b1","epoch":"e1","version":9,"state":{"s0":{"t":1,"seq":5,"pad":"x"},"s12":{"t":2,"seq":3,"pad":"x"}}}"#,
            version: nil, base: nil, samples: [(0, 5, 1), (12, 3, 2)], snapshot: true
        ),
    ]

    static func run() -> Int32 {
        var failures = 0
        var samples: [OpSample] = []
        for item in cases {
            var bytes = Array(item.frame.utf8)
            var problems: [String] = []
            bytes.withUnsafeMutableBufferPointer { buffer in
                let p = buffer.baseAddress!
                let n = buffer.count
                var from = 0
                if let version = item.version {
                    if let header = Scan.patchHeader(p, n) {
                        if header.version != version || header.base != item.base {
                            problems.append("header \(header.version)/\(header.base), expected \(version)/\(item.base ?? -1)")
                        }
                        from = header.ops
                    } else {
                        problems.append("no patch header")
                    }
                    if Scan.messageType(p, n) != .patch { problems.append("not seen as a patch") }
                }
                if item.snapshot {
                    Scan.snapshotSamples(p, n, into: &samples)
                } else {
                    Scan.samples(p, n, from: from, into: &samples)
                }
            }
            let got = samples.map { "\($0.sender)/\($0.seq)/\($0.t)" }
            let expected = item.samples.map { "\($0.sender)/\($0.seq)/\($0.t)" }
            if got != expected { problems.append("samples \(got), expected \(expected)") }
            if problems.isEmpty {
                print("ok    \(item.name)")
            } else {
                failures += 1
                print("FAIL  \(item.name): \(problems.joined(separator: "; "))")
            }
        }
        failures += runLayouts()
        return failures == 0 ? 0 : 1
    }
}
