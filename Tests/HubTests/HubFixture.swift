import ReactorHubStore
import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLogging
import Reactor
import ReactorHubKinds
import TestSupport
import Testing
import ReactorHubWebSocketServer
import ReactorHubProtocol

/// Cities the test weather use case knows.
let testCities = [
    Weather(city: "Seoul", temperature: 3.5, condition: "Clear", humidity: 41),
    Weather(city: "Paris", temperature: 7.8, condition: "Light rain", humidity: 82),
]

/// Where a test's hub runs: in memory (the default: deterministic, no sockets) or over
/// real sockets through the libwebsockets server (a few tests per area).
enum TestTransport: Sendable, CustomTestStringConvertible {
    case inMemory
    case overTheWire

    var testDescription: String { self == .inMemory ? "in memory" : "over the wire" }
}

/// The hub under test and how to reach it.
struct TestServer: Sendable {
    let hub: Hub
    let inMemory: InMemoryTransport?
    let port: Int

    /// Connects a client and reads its `hello`.
    func connect() async throws -> ProtocolClient {
        if let inMemory {
            return try await ProtocolClient(connection: inMemory.connect())
        }
        return try await ProtocolClient(connection: WebSocketTestClient.connect(port: port, subprotocols: ["reactorhub.v1"]))
    }

    /// Connects an in-memory client without reading anything (the test reads `hello`).
    func rawClient() async throws -> InMemoryClient {
        guard let inMemory else { throw TestClientError("rawClient needs the in-memory transport") }
        return try await inMemory.connect()
    }
}

/// The shipped counter, weather and doc kinds with short delays, so that tests run quickly.
func testRegistry(counterDelay: Duration = .milliseconds(30), weatherLatency: Duration = .milliseconds(30)) -> ReactorRegistry {
    let registry = ReactorRegistry()
    registry.register("counter") { CounterReactor(delay: counterDelay) }
    let weather = WeatherUseCase.offline(cities: testCities, latency: weatherLatency)
    registry.register("weather") { WeatherReactor(weatherUseCase: weather) }
    registry.register("doc") { DocReactor() }
    return registry
}

/// A logger for tests: the process-wide handler, at `warning`.
let testLogger: Logger = {
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    return logger
}()

/// The hubs' configuration in tests: rate limits out of the way, then `configure`.
func testConfiguration(_ configure: (inout HubConfiguration) -> Void) -> HubConfiguration {
    var configuration = HubConfiguration()
    configuration.serverName = "reactorhub/0.1.0"
    configuration.actionsPerSecond = 100_000
    configuration.actionBurst = 100_000
    configure(&configuration)
    return configuration
}

/// Starts a hub (in memory unless `transport` says otherwise) with the test kinds, runs
/// `body`, then shuts the hub down.
func withHub(
    counterDelay: Duration = .milliseconds(30),
    weatherLatency: Duration = .milliseconds(30),
    transport kind: TestTransport = .inMemory,
    store: any StateStore = MemoryStateStore(),
    registry: ReactorRegistry? = nil,
    configure: (inout HubConfiguration) -> Void = { _ in },
    _ body: (Hub, TestServer) async throws -> Void
) async throws {
    let configuration = testConfiguration(configure)
    let registry = registry ?? testRegistry(counterDelay: counterDelay, weatherLatency: weatherLatency)
    let inMemory: InMemoryTransport?
    let transport: any MessageTransport
    switch kind {
    case .inMemory:
        let memory = InMemoryTransport()
        inMemory = memory
        transport = memory
    case .overTheWire:
        var wire = TransportConfiguration()
        wire.port = 0
        wire.webRoot = nil
        inMemory = nil
        transport = WebSocketServer(configuration: wire, logger: testLogger)
    }
    let hub = Hub(configuration: configuration, registry: registry, store: store, transport: transport, logger: testLogger)
    let port = try hub.start()
    let server = TestServer(hub: hub, inMemory: inMemory, port: port)
    let eviction = IdleEviction(hub: hub)
    let evicting = Task { try await eviction.run() }
    defer { eviction.triggerGracefulShutdown() }
    do {
        try await body(hub, server)
    } catch {
        await hub.shutdown(grace: .milliseconds(100))
        throw error
    }
    eviction.triggerGracefulShutdown()
    try await evicting.value
    await hub.shutdown(grace: .seconds(2))
}

/// Polls `condition` every 10 ms for at most 30 s: for state another thread settles just
/// after the event a test can wait for.
func eventually(_ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
