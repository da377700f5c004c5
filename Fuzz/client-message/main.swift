// client-message: ClientMessageParser (package-visible in ReactorHubProtocol) on
// arbitrary bytes, the way the hub reads every text frame a client sends.
//
// Never crashes. A `ref` it keeps, on an accepted or a refused message, is echoed on every
// reply, as it was written: it is a slice of the input, a JSON string or number, and takes at
// most `Ref.maximumLength` characters (Unicode scalars, without a string's quotes), so a
// client cannot make the server repeat a long text. An accepted join, leave or action names
// an address whose text parses back to itself. The shortcut for the usual action message
// answers as the full parse does, down to where the action and the ref were written.
import ReactorHubProtocol
import FuzzSupport
import ReactorHubJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    // The parser leaves an action unparsed, and checks it as strictly as the rest: a
    // message is bad JSON exactly when the whole parser refuses it.
    let parsed = try? JSONParser().parse(input.array)
    let answer = ClientMessageParser.parse(input.array)
    checkShortcut(answer, on: input.array)
    switch answer {
    case .success(let request):
        checkEchoed(request.ref, in: input.array)
        require(parsed != nil, "a message the parser refuses was accepted")
        if case .action(_, let payload, _) = request.message {
            require(parsed?["action"] == payload.value, "the action \(payload.value) is not the message's \(String(describing: parsed?["action"]))")
        }
        switch request.message {
        case .join(let address, _, _), .leave(let address), .action(let address, _, _), .presence(let address, _):
            require(ReactorAddress(address.description) == address, "address \(address) does not parse back to itself")
        case .ping, .auth:
            break
        }
    case .failure(let failure):
        checkEchoed(failure.ref, in: input.array)
        require((failure.error.code == .badJSON) == (parsed == nil), "bad JSON: \(failure.error.code == .badJSON), the parser: \(parsed == nil ? "refused" : "accepted")")
        require(!failure.error.message.isEmpty, "a refusal without a message")
    }
    return 0
}

/// The echoed ref is a string or number written in the input, within the limit.
func checkEchoed(_ ref: Ref?, in input: [UInt8]) {
    guard let ref else { return }
    let written = ref.json
    require(
        input.count >= written.count
            && (0...(input.count - written.count)).contains { input[$0..<($0 + written.count)].elementsEqual(written) },
        "the ref \(ref) is not in the message as written"
    )
    guard let value = try? JSONParser().parse(ref.json) else {
        require(false, "the ref \(ref) is not JSON")
        return
    }
    var scalars = Ref.scalarCount(ref.json[...])
    switch value {
    case .string: scalars -= 2
    case .int, .double: break
    default: require(false, "the ref \(ref) is neither a string nor a number")
    }
    require(
        scalars <= Ref.maximumLength,
        "the ref \(ref) is written back as \(scalars) characters, more than \(Ref.maximumLength)"
    )
}

/// `parse` (with its shortcut) and `parseInFull` give the same answer, member for member.
func checkShortcut(_ answer: Result<ClientRequest, ClientMessageParser.Failure>, on input: [UInt8]) {
    let full = ClientMessageParser.parseInFull(input)
    switch (answer, full) {
    case (.success(let request), .success(let expected)):
        require(request == expected && request.ref?.json == expected.ref?.json, "the shortcut made \(request), the full parse \(expected)")
        if case .action(_, let payload, let id) = request.message, case .action(_, let expectedPayload, let expectedID) = expected.message {
            require(payload.writtenRange == expectedPayload.writtenRange && id == expectedID, "the shortcut's action or id differs from the full parse's")
        }
    case (.failure(let failure), .failure(let expected)):
        require(failure == expected, "the shortcut refused with \(failure), the full parse with \(expected)")
    default:
        require(false, "the shortcut answered \(answer), the full parse \(full)")
    }
}
