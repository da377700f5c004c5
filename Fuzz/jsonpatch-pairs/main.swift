// Writes random document pairs and the patch JSONPatch.diff computes between them, one
// JSON line each, {"a":…,"b":…,"patch":[…]}, for Tests/JSONTests/check_with_jsonpatch.py,
// which applies every patch with Python's jsonpatch and compares the result with b.
//
//   jsonpatch-pairs [--count N] [--seed S] [--profile wide|standard]
//
// The documents come from RandomDocuments (Tests/JSONTestSupport), `wide` by default:
// objects past JSONObject's index threshold, long arrays, keys with equivalent spellings.
#if canImport(Glibc)
import Glibc
#endif
import ReactorHubJSON
import JSONTestSupport

var count = 2_000
var seed: UInt64 = 0x0D1F_F5EE
var profile = RandomDocuments.Profile.wide

var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    let value = arguments.popFirst()
    switch (option, value) {
    case ("--count", let text?) where Int(text) != nil:
        count = Int(text)!
    case ("--seed", let text?) where UInt64(text) != nil:
        seed = UInt64(text)!
    case ("--profile", "wide"?):
        profile = .wide
    case ("--profile", "standard"?):
        profile = .standard
    default:
        let usage = "usage: jsonpatch-pairs [--count N] [--seed S] [--profile wide|standard]\n"
        _ = write(STDERR_FILENO, usage, usage.utf8.count)
        exit(2)
    }
}

var documents = RandomDocuments(seed: seed, profile: profile)
for _ in 0..<count {
    let (old, new) = documents.pair()
    var line = JSONWriter()
    line.writeRaw(#"{"a":"#)
    line.writeValue(old)
    line.writeRaw(#","b":"#)
    line.writeValue(new)
    line.writeRaw(#","patch":"#)
    line.writePatch(JSONPatch.diff(from: old, to: new))
    line.writeRaw("}\n")
    line.bytes.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            guard written > 0 else { exit(1) }
            offset += written
        }
    }
}
