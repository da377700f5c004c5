// action-decoder: ActionDecoder on any JSON document, into the Action enums of the shipped
// kinds (counter, weather, todo, doc) and a few enums of the shapes the decoder handles
// (labeled, unlabeled and optional values, nested types, raw-value and hand-written enums).
//
// Never crashes. A decoded action is the case the payload names: its `type` (or the bare
// string) is one of the enum's cases, and decoding the same payload again gives the same
// case; a refusal names a problem with a message.
import FuzzSupport
import ReactorHubJSON
import ReactorHubKinds

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActionDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let payload = try? JSONParser().parse(input.bytes) else { return 0 }
    // The same payload as a WebSocket message carries it: left as bytes inside the message.
    let message = Array(#"{"type":"action","action":"#.utf8) + input.bytes + Array("}".utf8)
    // (One nested as deep as the parser allows is one level too deep inside a message.)
    guard let range = (try? JSONParser().parse(message, rangesOf: ["action"], unparsed: "action"))?.ranges[0] else { return 0 }
    let bytes = ActionPayload(checkedJSON: message, range: range)
    require(bytes.value == payload, "the payload read back from the message is \(bytes.value), not \(payload)")
    decode(CounterReactor.Action.self, payload, bytes)
    decode(WeatherReactor.Action.self, payload, bytes)
    decode(TodoReactor.Action.self, payload, bytes)
    decode(DocReactor.Action.self, payload, bytes)
    decode(MixedAction.self, payload, bytes)
    decode(RawAction.self, payload, bytes)
    decode(HandWritten.self, payload, bytes)
    return 0
}

/// Decodes `payload` as `Action` and checks what came out, and that decoding it from the
/// bytes of a message gives the same case or the same refusal.
func decode<Action: Decodable>(_ type: Action.Type, _ payload: JSONValue, _ bytes: ActionPayload) {
    let decoder = ActionDecoder()
    let fromBytes = Result { () throws(ActionDecodingError) in try decoder.decode(type, from: bytes) }
    do {
        let action = try decoder.decode(type, from: payload)
        require(
            (try? fromBytes.get()).map { caseName(of: $0) == caseName(of: action) } == true,
            "\(payload) decoded as \(action) from a value, as \(fromBytes) from bytes"
        )
        let name = actionName(payload)
        if let names = Schemas.caseNames[ObjectIdentifier(type)], !names.isEmpty {
            require(name.map(names.contains) == true, "decoded \(action) from \(payload), which names no case of \(type)")
        }
        let again = try? decoder.decode(type, from: payload)
        require(again.map { caseName(of: $0) == caseName(of: action) } == true, "decoding \(payload) twice gave different cases")
    } catch {
        require(!error.message.isEmpty, "a refusal without a message")
        if case .failure(let refusal) = fromBytes {
            require(refusal == error, "\(payload) refused from a value with \(error), from bytes with \(refusal)")
        } else {
            require(false, "\(payload) refused from a value with \(error), decoded from bytes")
        }
    }
}

/// The action name a payload gives: the bare string, or the object's `type`.
func actionName(_ payload: JSONValue) -> String? {
    switch payload {
    case .string(let name): name
    case .object(let object): object["type"]?.stringValue
    default: nil
    }
}

/// The case of an enum value, without its associated values.
func caseName(of action: Any) -> String {
    let mirror = Mirror(reflecting: action)
    return mirror.children.first?.label ?? "\(action)"
}

/// The case names of the decoded enums, read once (`ActionSchema` probes the synthesized
/// conformance, which is worth doing once, not per input).
enum Schemas {
    static let caseNames: [ObjectIdentifier: [String]] = [
        ObjectIdentifier(CounterReactor.Action.self): ActionSchema.caseNames(of: CounterReactor.Action.self),
        ObjectIdentifier(WeatherReactor.Action.self): ActionSchema.caseNames(of: WeatherReactor.Action.self),
        ObjectIdentifier(TodoReactor.Action.self): ActionSchema.caseNames(of: TodoReactor.Action.self),
        ObjectIdentifier(DocReactor.Action.self): ActionSchema.caseNames(of: DocReactor.Action.self),
        ObjectIdentifier(MixedAction.self): ActionSchema.caseNames(of: MixedAction.self),
    ]
}
