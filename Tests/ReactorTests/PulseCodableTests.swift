import Foundation
import Reactor
import Testing

/// The Codable bridge of `Pulse`: pulses travel apart from the state.
@Suite struct PulseCodableTests {
    struct State: Codable, Sendable, Equatable {
        var value: Int
        var isLoading: Bool
        @Pulse var alertMessage: String?
    }

    struct Required: Codable {
        @Pulse var count: Int
    }

    func jsonText(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    func firedState() -> State {
        var state = State(value: 3, isLoading: false)
        state.alertMessage = "first"
        state.alertMessage = "increased!"
        return state
    }

    @Test func withoutARecorderAPulseEncodesAsItsValue() throws {
        let json = try JSONEncoder().encode(firedState())
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        #expect(object?["alertMessage"] as? String == "increased!")
        #expect(object?["value"] as? Int == 3)
    }

    @Test func withARecorderAPulseReportsItselfAndEncodesNoValue() throws {
        let recorder = PulseRecorder()
        let encoder = JSONEncoder()
        encoder.userInfo[PulseRecorder.userInfoKey] = recorder

        let json = String(decoding: try encoder.encode(firedState()), as: UTF8.self)

        #expect(!json.contains("increased!"))
        let records = recorder.records
        #expect(records.count == 1)
        #expect(records.first?.name == "alertMessage")
        #expect(records.first?.updateCount == 2)
        if let record = records.first {
            #expect(try jsonText(record.value) == "\"increased!\"")
        }
        #expect(recorder.removeAll().count == 1)
        #expect(recorder.records.isEmpty)
    }

    @Test func missingOptionalPulseDecodesAsNilThatHasNotFired() throws {
        let state = try JSONDecoder().decode(State.self, from: Data(#"{"value":1,"isLoading":true}"#.utf8))
        #expect(state == State(value: 1, isLoading: true))
        #expect(state.alertMessage == nil)
        #expect(state.$alertMessage.valueUpdatedCount == 0)
    }

    @Test func presentPulseDecodesItsValueAsNotFired() throws {
        let state = try JSONDecoder().decode(State.self, from: Data(#"{"value":1,"isLoading":true,"alertMessage":"hi"}"#.utf8))
        #expect(state.alertMessage == "hi")
        #expect(state.$alertMessage.valueUpdatedCount == 0)
    }

    @Test func missingNonOptionalPulseFailsToDecode() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Required.self, from: Data("{}".utf8))
        }
    }

    @Test func pulsesAreEqualOnlyWithTheSameValueAndCount() {
        var fired = State(value: 0, isLoading: false)
        fired.alertMessage = nil
        #expect(fired != State(value: 0, isLoading: false))
        var refired = fired
        refired.alertMessage = nil
        #expect(refired != fired)
        #expect(refired.$alertMessage.valueUpdatedCount == 2)
    }

    /// A source whose pulses decode their values from JSON text.
    func source(_ pulses: [String: (count: UInt, json: String)]) -> PulseSource {
        PulseSource(pulses.mapValues { entry in
            PulseSource.Fired(updateCount: entry.count) { type in
                try JSONDecoder().decode(type, from: Data(entry.json.utf8))
            }
        })
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ json: String, with source: PulseSource) throws -> Value {
        let decoder = JSONDecoder()
        decoder.userInfo[PulseSource.userInfoKey] = source
        return try decoder.decode(type, from: Data(json.utf8))
    }

    @Test func aPulseSourceGivesAnAbsentPulseItsCountAndValue() throws {
        let state = try decode(State.self, #"{"value":1,"isLoading":false}"#, with: source(["alertMessage": (3, #""increased!""#)]))
        #expect(state.value == 1)
        #expect(state.alertMessage == "increased!")
        #expect(state.$alertMessage.valueUpdatedCount == 3)
    }

    @Test func aPulseSourceWinsOverWhatTheEncodedStateHolds() throws {
        let fromNull = try decode(State.self, #"{"value":1,"isLoading":false,"alertMessage":null}"#, with: source(["alertMessage": (2, #""x""#)]))
        #expect(fromNull.alertMessage == "x")
        #expect(fromNull.$alertMessage.valueUpdatedCount == 2)
        let fromValue = try decode(State.self, #"{"value":1,"isLoading":false,"alertMessage":"old"}"#, with: source(["alertMessage": (5, "null")]))
        #expect(fromValue.alertMessage == nil)
        #expect(fromValue.$alertMessage.valueUpdatedCount == 5)
    }

    @Test func aPulseTheSourceDoesNotKnowDecodesAsBefore() throws {
        let absent = try decode(State.self, #"{"value":1,"isLoading":false}"#, with: source(["other": (1, "1")]))
        #expect(absent.alertMessage == nil)
        #expect(absent.$alertMessage.valueUpdatedCount == 0)
        let present = try decode(State.self, #"{"value":1,"isLoading":false,"alertMessage":"hi"}"#, with: source([:]))
        #expect(present.alertMessage == "hi")
        #expect(present.$alertMessage.valueUpdatedCount == 0)
    }

    @Test func aSourceValueOfTheWrongTypeFailsTheDecode() {
        #expect(throws: DecodingError.self) {
            try decode(State.self, #"{"value":1,"isLoading":false}"#, with: source(["alertMessage": (1, "42")]))
        }
    }

    @Test func statesDecodedWithGrowingCountsLetPulseStreamsFire() throws {
        // The way a mirror feeds a local runtime: each received pulse bumps the count.
        let before = try decode(State.self, #"{"value":0,"isLoading":false}"#, with: source(["alertMessage": (1, #""a""#)]))
        let same = try decode(State.self, #"{"value":0,"isLoading":false}"#, with: source(["alertMessage": (1, #""a""#)]))
        let after = try decode(State.self, #"{"value":0,"isLoading":false}"#, with: source(["alertMessage": (2, #""a""#)]))
        #expect(before == same)
        #expect(after != before)
    }
}
