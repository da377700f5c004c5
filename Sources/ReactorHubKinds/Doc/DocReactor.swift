public import ReactorHubJSON
public import Reactor

/// A shared JSON document for clients that write no Swift: `set` and `remove` at JSON
/// Pointers, `patch` with RFC 6902 (applied all or nothing, so a `test` operation gives
/// optimistic concurrency), and `emit` for ephemeral signals such as cursors, delivered as
/// the `event` pulse. An operation that does not apply, or that would make the document's
/// compact JSON longer than `maxBytes`, is refused and nothing changes.
public final class DocReactor: Reactor {
    public enum Action: Codable, Sendable, Equatable {
        case set(path: String, value: JSONValue)
        case remove(path: String)
        case patch(ops: [JSONValue])
        case emit(name: String, value: JSONValue?)
    }

    public enum Mutation: Sendable {
        case replaceDocument(JSONObject)
        case emit(DocEvent)
    }

    public struct State: Codable, Sendable, Equatable {
        /// The document; the state clients see is this object itself.
        public var document: JSONObject
        /// The last `emit`, as a pulse (`{name, value}`).
        @Pulse public var event: DocEvent?

        public init(document: JSONObject = JSONObject()) {
            self.document = document
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self.document = try container.decode(JSONObject.self)
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
    }

    public let initialState = State()
    private let maxBytes: Int

    /// Creates a document limited to `maxBytes` of compact JSON (`reactors.doc.maxBytes`).
    public init(maxBytes: Int = 1_048_576) {
        self.maxBytes = maxBytes
    }

    public func mutate(action: Action) throws -> Effect<Mutation> {
        let document = JSONValue.object(currentState.document)
        switch action {
        case .set(let path, let value):
            return .just(.replaceDocument(try checked(try DocumentEdits.set(value, at: path, in: document))))
        case .remove(let path):
            return .just(.replaceDocument(try checked(try DocumentEdits.remove(at: path, in: document))))
        case .patch(let operations):
            return .just(.replaceDocument(try checked(try DocumentEdits.patch(operations, in: document))))
        case .emit(let name, let value):
            return .just(.emit(DocEvent(name: name, value: value ?? .null)))
        }
    }

    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .replaceDocument(let document):
            state.document = document
        case .emit(let event):
            state.event = event
        }
        return state
    }

    /// The new document, if it is an object within `maxBytes`.
    private func checked(_ document: JSONValue) throws -> JSONObject {
        guard case .object(let object) = document else {
            throw ActionRefusal("the document must stay a JSON object, this would make it \(document.kind.phrase)")
        }
        let size = document.serializedByteCount(limit: maxBytes)
        guard size <= maxBytes else {
            throw ActionRefusal("the document would exceed \(maxBytes) bytes of JSON (reactors.doc.maxBytes)")
        }
        return object
    }
}

/// The state's JSON is its document, held already: publishing a change encodes nothing.
/// Agrees with `encode(to:)`, which writes the pulse first (nothing, under a recorder) and
/// then the document's members in order.
extension DocReactor.State: JSONValueRepresentable, PulseListing {
    public var jsonValue: JSONValue { .object(document) }

    public var pulseRecords: [PulseRecorder.Record] {
        [(name: "event", updateCount: _event.valueUpdatedCount, value: event)]
    }
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
