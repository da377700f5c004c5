import ReactorHubJSON
import Reactor
import ReactorTesting
import ReactorHubKinds
import Testing

@Suite("Shipped weather kind")
struct WeatherReactorTests {
    static let seoul = Weather(city: "Seoul", temperature: 3.5, condition: "Clear", humidity: 41)

    static let knowsSeoul = WeatherUseCase { city in
        guard city.lowercased() == "seoul" else { throw WeatherUseCase.NotFound(city: city) }
        return seoul
    }

    @Test func searchSetsLoadingThenWeatherThenClearsLoading() async {
        let store = TestStore(reactor: WeatherReactor(weatherUseCase: Self.knowsSeoul))
        await store.send(.searchCityWeather(city: "Seoul")) { $0.isLoading = true }
        await store.receive { $0.weather = Self.seoul }
        await store.receive { $0.isLoading = false }
        await store.finish()
    }

    @Test func unknownCityKeepsTheWeatherAndPulsesAfterLoadingEnds() async {
        let store = TestStore(reactor: WeatherReactor(weatherUseCase: Self.knowsSeoul))
        await store.send(.searchCityWeather(city: "Atlantis")) { $0.isLoading = true }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.errorMessage = "no weather found for 'Atlantis'" }
        await store.finish()
        #expect(store.state.weather == nil)
    }

    @Test func stateAlwaysHasAWeatherMemberNullWhenNone() throws {
        let json = try JSONValueEncoder().encode(WeatherReactor(weatherUseCase: Self.knowsSeoul).initialState)
        #expect(json["weather"] == .null)
        #expect(json["isLoading"] == false)
    }

    @Test func offlineUseCaseMatchesWithoutRegardToCase() async throws {
        let useCase = WeatherUseCase.offline(
            cities: [Self.seoul, Weather(city: "São Paulo", temperature: 26.7, condition: "Rain", humidity: 78)],
            latency: .zero
        )
        #expect(try await useCase.getCityWeather("SEOUL") == Self.seoul)
        #expect(try await useCase.getCityWeather("são paulo").city == "São Paulo")
        await #expect(throws: WeatherUseCase.NotFound.self) { try await useCase.getCityWeather("Atlantis") }
    }

    @Test func shippedDataFileHoldsTheTwelveCitiesOfTheContract() throws {
        let cities = try WeatherUseCase.loadCities(fromFile: "config/weather.json")
        let names = Set(cities.map(\.city))
        for city in ["Seoul", "Tokyo", "Paris", "London", "New York", "Berlin", "Sydney", "Cairo", "São Paulo", "Toronto", "Mumbai", "Nairobi"] {
            #expect(names.contains(city), "\(city) missing")
        }
    }
}
