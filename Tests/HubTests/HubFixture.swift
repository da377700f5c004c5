import Hub
import JSON
import Reactor
import Reactors
import Transport

/// Cities the test weather use case knows.
let testCities = [
    Weather(city: "Seoul", temperature: 3.5, condition: "Clear", humidity: 41),
    Weather(city: "Paris", temperature: 7.8, condition: "Light rain", humidity: 82),
]

/// Starts a hub on an ephemeral port with the shipped counter and weather kinds (short
/// delays so that tests run quickly), runs `body`, then shuts the hub down.
func withHub(
    counterDelay: Duration = .milliseconds(30),
    weatherLatency: Duration = .milliseconds(30),
    configure: (inout HubConfiguration) -> Void = { _ in },
    _ body: (Hub, Int) async throws -> Void
) async throws {
    var configuration = HubConfiguration()
    configuration.transport.port = 0
    configuration.transport.webRoot = nil
    configuration.actionsPerSecond = 100_000
    configuration.actionBurst = 100_000
    configure(&configuration)
    let registry = ReactorRegistry()
    registry.register("counter") { CounterReactor(delay: counterDelay) }
    let weather = WeatherUseCase.offline(cities: testCities, latency: weatherLatency)
    registry.register("weather") { WeatherReactor(weatherUseCase: weather) }
    registry.register("doc") { DocReactor() }
    let hub = Hub(configuration: configuration, registry: registry)
    let port = try hub.start()
    do {
        try await body(hub, port)
    } catch {
        await hub.shutdown(grace: .milliseconds(100))
        throw error
    }
    await hub.shutdown(grace: .seconds(2))
}
