import Reactor

/// The weather of one city, as seed 003's `WeatherVO`.
struct WeatherVO: Sendable, Equatable {
    var city: String
    var temperature: Double
    var summary: String
}

/// Seed 003's `WeatherUseCase` as a struct of closures with a live and a test value (TCA's
/// dependency style): the reactor never knows which one it has.
struct WeatherUseCase: Sendable {
    var getCityWeather: @Sendable (_ city: String) async throws -> WeatherVO?

    /// The live value: a weather service that answers after `latency` on `clock`; offline here,
    /// from a fixed table, since tests must not reach the network.
    static func live(clock: any ReactorClock = LiveClock(), latency: Duration = .milliseconds(20)) -> WeatherUseCase {
        WeatherUseCase { city in
            try await clock.sleep(for: latency)
            return knownWeather[city]
        }
    }

    /// A test value answering from `table` at once; unknown cities have no weather.
    static func test(_ table: [String: WeatherVO]) -> WeatherUseCase {
        WeatherUseCase { city in table[city] }
    }

    /// A test value that always fails.
    static let failing = WeatherUseCase { _ in throw TestError() }

    static let knownWeather: [String: WeatherVO] = [
        "Seoul": WeatherVO(city: "Seoul", temperature: 21.5, summary: "clear"),
        "Busan": WeatherVO(city: "Busan", temperature: 24.0, summary: "cloudy"),
    ]
}
