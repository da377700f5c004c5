// patch-apply: JSONPatch.apply on a document and a patch, the input's first line and the
// rest (both JSON), and JSONPatch.diff on what comes out.
//
// Never crashes, and is atomic: when the patch fails, the document is unchanged (equal,
// and with the same text). When it succeeds, `diff(original, result)` applied to the
// original gives the result, and that diff reads back from its own JSON form (both the
// `JSONValue` form and the patch writer's text) as the same operations.
import FuzzSupport
import ReactorHubJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPatchApply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (documentText, patchText) = FuzzInput(data, size).split(),
          let document = try? JSONParser().parse(documentText),
          let patch = try? JSONParser().parse(patchText)
    else { return 0 }
    let before = document.serialized()

    let result: JSONValue
    do {
        result = try JSONPatch.apply(patch, to: document)
    } catch {
        require(document.serialized() == before, "a failed patch changed the document: \(error)")
        require(error.operationIndex != nil || error.code == .invalidPatch, "a patch error that names no operation: \(error)")
        return 0
    }
    require(document.serialized() == before, "applying a patch changed the original document")

    let difference = JSONPatch.diff(from: document, to: result)
    do {
        let replayed = try JSONPatch.apply(difference, to: document)
        require(replayed == result, "diff(original, result) applied to the original is not the result")
    } catch {
        require(false, "diff(original, result) does not apply to the original: \(error)")
    }
    require((try? JSONPatch.operations(from: JSONPatch.jsonValue(of: difference))) == difference, "the diff does not read back from its JSON form")
    var writer = JSONWriter()
    writer.writePatch(difference)
    require(writer.bytes == JSONPatch.jsonValue(of: difference).serialized(), "the patch writer and the JSON form disagree")
    if document == result {
        require(difference.isEmpty, "equal documents gave a non-empty diff")
    }
    return 0
}
