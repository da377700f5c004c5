import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

@Suite("Weather over protocol v1")
struct WeatherSyncTests {
    @Test(arguments: [TestTransport.inMemory, .overTheWire])
    func searchGoesLoadingWeatherLoaded(transport: TestTransport) async throws {
        try await withHub(transport: transport) { _, server in
            let client = try await server.connect()
            let snapshot = try await client.join("weather/w")
            #expect(snapshot["state"] == .object(["weather": .null, "isLoading": false]))
            try await client.send(#"{"type":"action","reactor":"weather/w","action":{"type":"searchCityWeather","city":"seoul"},"ref":1}"#)
            #expect(try await client.next()["type"] == "ack")
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"weather/w","version":1,"patch":[{"op":"replace","path":"/isLoading","value":true}]}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"weather/w","version":2,"patch":[{"op":"replace","path":"/weather","value":{"city":"Seoul","temperature":3.5,"condition":"Clear","humidity":41}}]}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"weather/w","version":3,"patch":[{"op":"replace","path":"/isLoading","value":false}]}"#)
            await client.expectSilence()
        }
    }

    @Test func searchWhileLoadingIsIgnored() async throws {
        try await withHub(weatherLatency: .milliseconds(200)) { _, server in
            let client = try await server.connect()
            try await client.join("weather/busy")
            try await client.send(#"{"type":"action","reactor":"weather/busy","action":{"type":"searchCityWeather","city":"Seoul"},"ref":1}"#)
            try await client.send(#"{"type":"action","reactor":"weather/busy","action":{"type":"searchCityWeather","city":"Paris"},"ref":2}"#)
            var patches: [JSONValue] = []
            var acks: [JSONValue] = []
            while patches.count < 3 {
                let message = try await client.next()
                if message["type"] == "ack" { acks.append(message["ref"] ?? .null) } else { patches.append(message) }
            }
            #expect(acks == [1, 2])
            #expect(patches.map { $0["version"] } == [1, 2, 3])
            #expect(patches[1]["patch"]?[0]?["value"]?["city"] == "Seoul")
            await client.expectSilence(for: 0.4)
        }
    }

    @Test func unknownCityPulsesErrorAndLeavesWeatherUnchanged() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("weather/none")
            try await client.send(#"{"type":"action","reactor":"weather/none","action":{"type":"searchCityWeather","city":"Atlantis"}}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"weather/none","version":1,"patch":[{"op":"replace","path":"/isLoading","value":true}]}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"weather/none","version":2,"patch":[{"op":"replace","path":"/isLoading","value":false}]}"#)
            let pulse = try await client.next()
            #expect(pulse["type"] == "pulse")
            #expect(pulse["name"] == "errorMessage")
            #expect(pulse["version"] == 2)
            #expect(pulse["value"]?.stringValue?.contains("Atlantis") == true)
            let snapshot = try await client.join("weather/none", ref: 2)
            #expect(snapshot["state"] == .object(["weather": .null, "isLoading": false]))
        }
    }
}
