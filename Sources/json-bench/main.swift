import Foundation
import ReactorHubJSON

// json-bench: how long the JSON module takes for what the hub does per state change and
// per message. Build with `swift build -c release`; run `.build/release/json-bench`.
// Each figure is the median over 15 rounds (after a warm-up round) of the time per call,
// a round being the number of calls shown (15×N).

// `json-bench doc` runs only the doc edits section; `json-bench frames` only the cost of
// compressing frames and of state checksums.
if CommandLine.arguments.dropFirst().first == "doc" {
    DocEdits.run()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "frames" {
    Frames.run()
    exit(0)
}

let encoder = JSONValueEncoder()

func frame(_ patch: [PatchOperation], version: Int) -> [UInt8] {
    var writer = JSONWriter(reservingHeadroom: 16)
    writer.writeRaw(#"{"type":"patch","reactor":"counter/lobby","version":"#)
    writer.writeInt(version)
    writer.writeRaw(#","patch":"#)
    writer.writePatch(patch)
    writer.writeRaw("}")
    return writer.bytes
}

// MARK: Counter

print("counter state {value: Int, isLoading: Bool}, one change = encode + diff + frame the patch")
do {
    var state = CounterState(value: 0, isLoading: false)
    var previous = try encoder.encode(state)
    var version = 0
    let perChange = Measurement.run("encode + diff + serialize patch frame", iterations: 200_000) {
        state.value += 1
        let current = try! encoder.encode(state)
        let patch = JSONPatch.diff(from: previous, to: current)
        previous = current
        version += 1
        return frame(patch, version: version).count
    }
    perChange.report()
    Measurement.run("  encode only", iterations: 200_000) {
        state.value += 1
        return try! encoder.encode(state).objectValue!.count
    }.report()
    let a = try encoder.encode(CounterState(value: 1, isLoading: false))
    let b = try encoder.encode(CounterState(value: 2, isLoading: false))
    Measurement.run("  diff only", iterations: 200_000) { JSONPatch.diff(from: a, to: b).count }.report()
    let patch = JSONPatch.diff(from: a, to: b)
    Measurement.run("  serialize patch frame only", iterations: 200_000) { frame(patch, version: 7).count }.report()
    print("  frame: \(String(decoding: frame(patch, version: 7).dropFirst(16), as: UTF8.self))")
}

// MARK: Todo

print("\ntodo state of 10,000 items {items:[{id,title,done}]}, one item toggled")
do {
    var state = TodoState.make(count: 10_000)
    let before = try encoder.encode(state)
    state.items[1_234].done.toggle()
    let after = try encoder.encode(state)
    let encode = Measurement.run("encode whole state", iterations: 20) { try! encoder.encode(state).objectValue!.count }
    encode.report()
    let diff = Measurement.run("diff", iterations: 100) { JSONPatch.diff(from: before, to: after).count }
    diff.report()
    let patch = JSONPatch.diff(from: before, to: after)
    var patchWriter = JSONWriter()
    patchWriter.writePatch(patch)
    print("  patch: \(patch.count) op, \(patchWriter.bytes.count) bytes: \(String(decoding: patchWriter.bytes, as: UTF8.self))")
    let full = Measurement.run("re-serialize whole state (alternative)", iterations: 50) { after.serialized().count }
    full.report()
    print("  whole state: \(after.serialized().count) bytes")
}

// MARK: 1 MiB document

print("\n~1 MiB document, one leaf changed")
let document = Fixtures.document(targetBytes: 1 << 20)
let documentBytes = document.serialized()
do {
    print("  document: \(documentBytes.count) bytes, \(document.objectValue!.count) sections")
    let leaf: JSONPointer = "/section12/records/17/title"
    let edit: [PatchOperation] = [.replace(path: leaf, value: "changed")]
    let shared = try JSONPatch.apply(edit, to: document)
    Measurement.run("diff, copy-on-write sharing (doc reactor)", iterations: 2_000) {
        JSONPatch.diff(from: document, to: shared).count
    }.report("patch: \(JSONPatch.diff(from: document, to: shared))")
    let copyA = try JSONValue(parsing: documentBytes)
    let copyB = try JSONPatch.apply(edit, to: JSONValue(parsing: documentBytes))
    Measurement.run("diff, two independently parsed copies", iterations: 10) {
        JSONPatch.diff(from: copyA, to: copyB).count
    }.report("patch: \(JSONPatch.diff(from: copyA, to: copyB))")
}

// MARK: Throughput

print("\nparse and serialize throughput (MB/s = 10^6 bytes per second)")
do {
    let message = Array(Fixtures.actionMessage.utf8)
    let parsedMessage = try JSONValue(parsing: message)
    let parse = Measurement.run("parse \(message.count)-byte action message", iterations: 200_000) {
        try! JSONValue(parsing: message).objectValue!.count
    }
    parse.report(Measurement.format(parse.throughput(bytes: message.count), decimals: 1) + " MB/s")
    let serialize = Measurement.run("serialize \(message.count)-byte action message", iterations: 200_000) {
        parsedMessage.serialized().count
    }
    serialize.report(Measurement.format(serialize.throughput(bytes: message.count), decimals: 1) + " MB/s")
    let actionDecoder = ActionDecoder()
    Measurement.run("parse message + decode its action", iterations: 200_000) {
        let value = try! JSONValue(parsing: message)
        let action = try! actionDecoder.decode(WeatherAction.self, from: value["action"]!)
        if case .searchCityWeather(let city) = action { return city.utf8.count }
        return 0
    }.report()

    Measurement.run("… with the ranges of the top-level members", iterations: 200_000) {
        let parsed = try! JSONParser().parseWithMemberRanges(message)
        let action = try! actionDecoder.decode(WeatherAction.self, from: parsed.value["action"]!)
        if case .searchCityWeather(let city) = action { return city.utf8.count + parsed.memberRanges.count }
        return 0
    }.report()
    Measurement.run("… the action left as bytes, decoded from them", iterations: 200_000) {
        let parsed = try! JSONParser().parse(message, rangesOf: ["action"], unparsed: "action")
        let payload = ActionPayload(checkedJSON: message, range: parsed.ranges[0]!)
        let action = try! actionDecoder.decode(WeatherAction.self, from: payload)
        if case .searchCityWeather(let city) = action { return city.utf8.count + parsed.value.objectValue!.count }
        return 0
    }.report()

    let parseDocument = Measurement.run("parse 1 MiB document", iterations: 5) {
        try! JSONValue(parsing: documentBytes).objectValue!.count
    }
    parseDocument.report(Measurement.format(parseDocument.throughput(bytes: documentBytes.count), decimals: 1) + " MB/s")
    let serializeDocument = Measurement.run("serialize 1 MiB document", iterations: 5) {
        document.serialized().count
    }
    serializeDocument.report(Measurement.format(serializeDocument.throughput(bytes: documentBytes.count), decimals: 1) + " MB/s")
}

DocEdits.run()

print("\n(checksum \(Sink.total))")
