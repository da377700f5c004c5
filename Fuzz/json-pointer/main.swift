// json-pointer: JSONPointer(parsing:) on any UTF-8 text.
//
// Never crashes. A pointer it accepts prints as exactly the text it was read from (`~0`
// and `~1` are the only escapes, so the string form round-trips byte for byte), reads
// back to the same tokens, and survives the patch writer (a pointer inside a JSON
// string). An array-index token means the number it spells. Looking the pointer up in a
// document never crashes, and finds what the patch editor finds.
import FuzzSupport
import ReactorHubJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONPointer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = FuzzInput(data, size).text, let pointer = try? JSONPointer(parsing: text) else { return 0 }

    require(pointer.description.utf8.elementsEqual(text.utf8), "'\(text)' prints as '\(pointer.description)'")
    let again = try? JSONPointer(parsing: pointer.description)
    require(again.map { sameTokens($0, pointer) } == true, "'\(pointer)' does not read back to its tokens")

    var writer = JSONWriter()
    writer.writePointer(pointer)
    let written = try? JSONValue(parsing: writer.bytes)
    require(written?.stringValue.map { $0.utf8.elementsEqual(text.utf8) } == true, "the patch writer spells '\(text)' as \(writer.bytes)")

    for token in pointer.tokens {
        if case .position(let index)? = JSONPointer.arrayIndex(token) {
            require(String(index) == token, "token '\(token)' read as index \(index)")
        }
    }
    let found = Sample.document[pointer: pointer]
    let test = try? JSONPatch.apply([.test(path: pointer, value: found ?? .null)], to: Sample.document)
    require(found == nil || test != nil, "the value at '\(pointer)' is found but fails its own test")
    return 0
}

/// Token by token, byte for byte (String equality would also accept equivalent spellings).
func sameTokens(_ left: JSONPointer, _ right: JSONPointer) -> Bool {
    left.tokens.count == right.tokens.count && zip(left.tokens, right.tokens).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
}

/// A document with the kinds of members pointers name: nested, escaped, numeric, empty.
enum Sample {
    static let document: JSONValue = [
        "a": ["b": [1, 2, ["c": "d"]]],
        "a/b": 1,
        "m~n": 2,
        "": ["": 3],
        "0": [true, false, .null],
        "키": "값",
        "-": [4],
    ]
}
