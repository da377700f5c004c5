import Foundation
import ReactorHubJSON
import Reactor

/// How the weather reactor looks a city up: a struct of closures with a live value (an
/// offline data file, with a simulated latency) and whatever tests need.
public struct WeatherUseCase: Sendable {
    /// Why a lookup found nothing.
    public struct NotFound: Error, Sendable, Equatable {
        public var city: String
        public init(city: String) { self.city = city }
    }

    /// The weather of `city`; throws `NotFound` for an unknown city.
    public var getCityWeather: @Sendable (_ city: String) async throws -> Weather

    public init(getCityWeather: @escaping @Sendable (_ city: String) async throws -> Weather) {
        self.getCityWeather = getCityWeather
    }

    /// Looks cities up in `cities` (matched without regard to case) after `latency`.
    public static func offline(cities: [Weather], latency: Duration, clock: any Clock<Duration> = ContinuousClock())
        -> WeatherUseCase
    {
        let byName = Dictionary(cities.map { ($0.city.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        return WeatherUseCase { city in
            if latency > .zero {
                try await clock.sleep(for: latency)
            }
            guard let weather = byName[city.trimmingCharacters(in: .whitespaces).lowercased()] else {
                throw NotFound(city: city)
            }
            return weather
        }
    }

    /// Reads `{"cities":[{"city":…,"temperature":…,"condition":…,"humidity":…}, …]}`.
    public static func loadCities(fromFile path: String) throws -> [Weather] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WeatherDataError(message: "\(path): weather data file not found")
        }
        struct File: Decodable {
            var cities: [Weather]
        }
        do {
            let value = try JSONParser().parse([UInt8](data))
            return try JSONValueDecoder().decode(File.self, from: value).cities
        } catch {
            throw WeatherDataError(message: "\(path): not a weather data file: \(error)")
        }
    }
}

/// The weather data file could not be read.
public struct WeatherDataError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
