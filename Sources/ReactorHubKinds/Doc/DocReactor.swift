public import ReactorHubJSON
public import Reactor
import Synchronization

/// A shared JSON document for clients that write no Swift: `set` and `remove` at JSON
/// Pointers, `patch` with RFC 6902 (applied all or nothing, so a `test` operation gives
/// optimistic concurrency), and `emit` for ephemeral signals such as cursors, delivered as
/// the `event` pulse. An operation that does not apply, or that would take the document
/// past one of its `DocumentLimits` (size, depth, elements per container, operations per
/// patch), is refused and nothing changes.
///
/// An edit costs what it changes: the document's size is kept rather than measured, the
/// depth is checked on the values added, and the state carries the edit's operations, so
/// that the hub sends them instead of diffing the whole document (`JSONValueRepresentable`).
public final class DocReactor: Reactor {
    public enum Action: Codable, Sendable, Equatable {
        case set(path: String, value: JSONValue)
        case remove(path: String)
        case patch(ops: [JSONValue])
        case emit(name: String, value: JSONValue?)
    }

    public enum Mutation: Sendable {
        case edit(DocEdit)
        case emit(DocEvent)
    }

    public struct State: Codable, Sendable, Equatable {
        /// The document; the state clients see is this object itself.
        public var document: JSONObject
        /// The last `emit`, as a pulse (`{name, value}`).
        @Pulse public var event: DocEvent?
        /// The last edit, whose operations made `document` (while it is that edit's result).
        var lastEdit: DocEdit?
        /// The `pulseRecords`, made when the pulse is set (they were made for every version, two
        /// allocations each: the list and the value's box).
        fileprivate var records: [PulseRecorder.Record]

        public init(document: JSONObject = JSONObject()) {
            self.document = document
            records = []
            records = recordsOfThePulse()
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self.document = try container.decode(JSONObject.self)
            records = []
            records = recordsOfThePulse()
        }

        /// Sets the `event` pulse (a new update of it, even to the same value).
        mutating func emit(_ event: DocEvent) {
            self.event = event
            records = recordsOfThePulse()
        }

        fileprivate func recordsOfThePulse() -> [PulseRecorder.Record] {
            [(name: "event", updateCount: _event.valueUpdatedCount, value: event)]
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            // The pulse first: with a pulse recorder it writes nothing, so a document
            // member of the same name, written after it, is kept.
            try container.encode(_event, forKey: JSONCodingKey(stringValue: "event"))
            for (key, value) in document {
                try container.encode(value, forKey: JSONCodingKey(stringValue: key))
            }
        }

        /// The document and the pulse; what the last edit was is not part of the state.
        public static func == (lhs: State, rhs: State) -> Bool {
            lhs.document == rhs.document && lhs._event == rhs._event
        }
    }

    public let initialState = State()
    private let limits: DocumentLimits
    /// The size of the document `mutate` last measured or made, and that document.
    private let measured = Mutex<(document: JSONObject, byteCount: Int)?>(nil)

    /// Creates a document limited to `maxBytes` of compact JSON (`reactors.doc.maxBytes`).
    public convenience init(maxBytes: Int = 1_048_576) {
        self.init(limits: DocumentLimits(maxBytes: maxBytes))
    }

    /// Creates a document kept within `limits` (`reactors.doc.*`).
    public init(limits: DocumentLimits) {
        self.limits = limits
    }

    public func mutate(action: Action) throws -> Effect<Mutation> {
        let base = currentState.document
        let target = DocumentEdits.Target(document: .object(base), byteCount: byteCount(of: base), limits: limits)
        let result: JSONPatch.BoundedResult
        switch action {
        case .set(let path, let value):
            result = try DocumentEdits.set(value, at: path, in: target)
        case .remove(let path):
            result = try DocumentEdits.remove(at: path, in: target)
        case .patch(let operations):
            result = try DocumentEdits.patch(operations, in: target)
        case .emit(let name, let value):
            return .just(.emit(DocEvent(name: name, value: value ?? .null)))
        }
        guard case .object(var document) = result.document else {
            throw ActionRefusal("the document must stay a JSON object, this would make it \(result.document.kind.phrase)")
        }
        if result.patch?.isEmpty == true {
            // The text is the same (only tests, or values set to what they were): keep the
            // document itself, which the publisher holds and compares in O(1).
            document = base
        }
        measured.withLock { $0 = (document, result.byteCount) }
        let step = result.patch.map { JSONPatch.Step(base: .object(base), operations: $0) }
        return .just(.edit(DocEdit(document: document, step: step)))
    }

    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .edit(let edit):
            state.document = edit.document
            state.lastEdit = edit
        case .emit(let event):
            state.emit(event)
        }
        return state
    }

    /// The size of `document`'s compact JSON: known when it is the document the last edit
    /// made (or the last one measured), else measured once.
    private func byteCount(of document: JSONObject) -> Int {
        if let known = measured.withLock({ $0 }), known.document.isIdentical(to: document) {
            return known.byteCount
        }
        let byteCount = JSONValue.object(document).serializedByteCount()
        measured.withLock { $0 = (document, byteCount) }
        return byteCount
    }
}

/// The state's JSON is its document, held already: publishing a change encodes nothing,
/// and the edit that made it is its patch. Agrees with `encode(to:)`, which writes the
/// pulse first (nothing, under a recorder) and then the document's members in order.
extension DocReactor.State: JSONValueRepresentable, PulseListing {
    public var jsonValue: JSONValue { .object(document) }

    public var jsonPatch: JSONPatch.Step? {
        guard let lastEdit, lastEdit.document.isIdentical(to: document) else { return nil }
        return lastEdit.step
    }

    public var pulseRecords: [PulseRecorder.Record] {
        // Made again when `event` was set other than through `emit` (its count moved on).
        guard records.first?.updateCount == _event.valueUpdatedCount else { return recordsOfThePulse() }
        return records
    }
}

/// One accepted edit of a doc: the document it makes, and the patch that makes it from
/// the document it was made from, when the operations stand for the change.
public struct DocEdit: Sendable {
    /// The edited document.
    public let document: JSONObject
    /// The operations and the document they apply to.
    public let step: JSONPatch.Step?
}

/// The value of the doc kind's `event` pulse.
public struct DocEvent: Codable, Sendable, Equatable {
    public var name: String
    public var value: JSONValue

    public init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }
}

extension DocReactor.Action: WireReadableAction {
    /// The edits read from their members as the synthesized `init(from:)` reads them (they
    /// are most of what a `doc` receives); anything else is left to it.
    public init?(wire action: ActionWireMembers) {
        switch action.name {
        case "set":
            guard action.count == 2, case .string(let path)? = action["path"], let value = action["value"] else { return nil }
            self = .set(path: path, value: value)
        case "remove":
            guard action.count == 1, case .string(let path)? = action["path"] else { return nil }
            self = .remove(path: path)
        case "patch":
            guard action.count == 1, case .array(let operations)? = action["ops"] else { return nil }
            self = .patch(ops: operations)
        default:
            return nil
        }
    }
}
