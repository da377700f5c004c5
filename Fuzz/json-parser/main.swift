// json-parser: JSONParser on arbitrary bytes.
//
// Never crashes; a document it accepts serializes to text that parses back to an equal
// document and serializes to the same bytes again (the writer's output is a fixpoint), its
// `serializedByteCount` is the writer's length (the differ sizes patches with it), and the
// strict parser (duplicate keys refused) either refuses it or reads the same document.
import FuzzSupport
import ReactorHubJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let value = try? JSONParser().parse(input.bytes) else { return 0 }

    let text = value.serialized()
    require(value.serializedByteCount() == text.count, "serializedByteCount \(value.serializedByteCount()) != \(text.count) bytes written")
    let again: JSONValue
    do {
        again = try JSONParser().parse(text)
    } catch {
        require(false, "the serialized document does not parse: \(error)")
        return 0
    }
    require(again == value, "round trip changed the document")
    require(again.serialized() == text, "the second serialization differs from the first")

    if let strict = try? JSONParser(options: .rejectDuplicateKeys).parse(input.bytes) {
        require(strict == value, "the strict parser read another document")
    }
    return 0
}
