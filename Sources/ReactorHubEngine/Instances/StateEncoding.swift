package import ReactorHubJSON
package import Reactor

/// Encodes a reactor's `State` into the JSON clients see, with `@Pulse` properties left
/// out and reported aside (their update counts and values).
package enum StateEncoding {
    /// A pulse property as the state holds it (its name, `valueUpdatedCount` and value); the
    /// value is encoded only when it fired.
    package typealias Pulse = PulseRecorder.Record

    /// The JSON of a pulse's value.
    package static func encodedValue(of pulse: Pulse) throws -> JSONValue {
        let value: any Encodable = pulse.value
        return try JSONValueEncoder().encode(value)
    }

    package struct Encoded {
        package var state: JSONValue
        package var pulses: [Pulse]
        /// The operations that made `state`, when the state knows them (the doc kind).
        package var patch: JSONPatch.Step? = nil

        /// Each pulse's name and update count, in order.
        package var pulseCounts: PulseCounts {
            var counts = PulseCounts()
            for pulse in pulses { _ = counts.update(pulse.name, to: pulse.updateCount) }
            return counts
        }
    }

    package static func encode<State: Encodable>(_ state: State) throws -> Encoded {
        try Form<State>().encode(state)
    }

    /// How states of one type are encoded, asked once (an instance keeps it: the cast
    /// showed in profiles when asked at every change).
    package struct Form<State: Encodable> {
        /// The state's type when its JSON is at hand (the doc kind): no encoder, no copy of
        /// the document. The type is asked, not the value: casting a large value to an
        /// existential boxes it on the heap.
        private let representable: (any (JSONValueRepresentable & PulseListing).Type)?

        package init() {
            representable = State.self as? any (JSONValueRepresentable & PulseListing).Type
        }

        package func encode(_ state: State) throws -> Encoded {
            if let representable {
                return StateEncoding.encode(state, as: representable)
            }
            return try StateEncoding.encodeThroughEncoder(state)
        }
    }

    private static func encodeThroughEncoder<State: Encodable>(_ state: State) throws -> Encoded {
        let recorder = PulseRecorder()
        var encoder = JSONValueEncoder()
        encoder.userInfo[PulseRecorder.userInfoKey] = recorder
        let json = try encoder.encode(state)
        return Encoded(state: json, pulses: recorder.records)
    }

    private static func encode<State, Representable: JSONValueRepresentable & PulseListing>(
        _ state: State, as _: Representable.Type
    ) -> Encoded {
        // The same type (`State.self` cast to it), read through a pointer so that its
        // reference counts stay right (as `sameTypeCast` in ReactorHubJSON does).
        precondition(State.self == Representable.self)
        let state = withUnsafePointer(to: state) { UnsafeRawPointer($0).assumingMemoryBound(to: Representable.self).pointee }
        return Encoded(state: state.jsonValue, pulses: state.pulseRecords, patch: state.jsonPatch)
    }
}

/// The update count each pulse of a state had when it was last published, by name: a few
/// entries searched in order (a dictionary hashed the name of each pulse at every change).
package struct PulseCounts {
    private var entries: [(name: String, count: UInt)] = []

    package init() {}

    /// Sets `name`'s count; returns whether it changed (a pulse not seen before has changed).
    package mutating func update(_ name: String, to count: UInt) -> Bool {
        guard let index = entries.firstIndex(where: { $0.name == name }) else {
            entries.append((name, count))
            return true
        }
        guard entries[index].count != count else { return false }
        entries[index].count = count
        return true
    }
}

/// Epochs: opaque strings, new whenever an instance's history starts afresh.
package enum Epoch {
    package static func make() -> String {
        let value = UInt64.random(in: 0...UInt64.max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
