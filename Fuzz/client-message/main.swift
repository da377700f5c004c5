// client-message: ClientMessageParser (internal to Hub, hence `@testable import`) on
// arbitrary bytes, the way the hub reads every text frame a client sends.
//
// Never crashes. A `ref` it keeps, on an accepted or a refused message, is echoed on every
// reply: written back as JSON it takes at most `maxRefLength` characters (Unicode scalars,
// without a string's quotes), so a client cannot make the server repeat a long text. An
// accepted join, leave or action names an address whose text parses back to itself.
import FuzzSupport
@testable import Hub
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    switch ClientMessageParser.parse(input.array) {
    case .success(let request):
        checkEchoed(request.ref)
        switch request.message {
        case .join(let address, _), .leave(let address), .action(let address, _):
            require(ReactorAddress(address.description) == address, "address \(address) does not parse back to itself")
        case .ping:
            break
        }
    case .failure(let failure):
        checkEchoed(failure.ref)
        require(!failure.error.message.isEmpty, "a refusal without a message")
    }
    return 0
}

/// The echoed ref's JSON text is within the limit.
func checkEchoed(_ ref: JSONValue?) {
    guard let ref else { return }
    var scalars = String(decoding: ref.serialized(), as: UTF8.self).unicodeScalars.count
    if case .string = ref { scalars -= 2 }
    require(
        scalars <= ClientMessageParser.maxRefLength,
        "the ref \(ref) is written back as \(scalars) characters, more than \(ClientMessageParser.maxRefLength)"
    )
}
