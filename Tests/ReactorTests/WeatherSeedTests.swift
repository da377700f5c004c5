import Reactor
import ReactorTesting
import Testing

/// Seed 003: the weather search, with its `if currentState.isLoading { return .empty() }` guard.
@Suite struct WeatherSeedTests {
    static let seoul = WeatherUseCase.knownWeather["Seoul"]!

    @Test func searchShowsLoadingThenTheWeather() async {
        let store = TestStore(reactor: SearchViewReactor(weatherUseCase: .test(["Seoul": Self.seoul])))

        await store.send(.searchCityWeather("Seoul")) { $0.isLoading = true }
        await store.receive { $0.weather = Self.seoul }
        await store.receive { $0.isLoading = false }
        await store.finish()
    }

    @Test func searchWhileLoadingIsIgnored() async {
        let clock = TestClock()
        let searched = Recorder<String>()
        let slow = WeatherUseCase { city in
            searched.append(city)
            try await clock.sleep(for: .seconds(1))
            return WeatherUseCase.knownWeather[city]
        }
        let store = TestStore(reactor: SearchViewReactor(weatherUseCase: slow), clock: clock)

        await store.send(.searchCityWeather("Seoul")) { $0.isLoading = true }
        await store.send(.searchCityWeather("Busan"))
        await store.advance(by: .seconds(1))
        await store.receive { $0.weather = Self.seoul }
        await store.receive { $0.isLoading = false }
        await store.finish()

        #expect(searched.values == ["Seoul"])
    }

    @Test func searchAfterTheFirstCompletesRunsAgain() async {
        let store = TestStore(reactor: SearchViewReactor(weatherUseCase: .test(WeatherUseCase.knownWeather)))

        await store.send(.searchCityWeather("Seoul")) { $0.isLoading = true }
        await store.receive { $0.weather = Self.seoul }
        await store.receive { $0.isLoading = false }
        await store.send(.searchCityWeather("Busan")) { $0.isLoading = true }
        await store.receive { $0.weather = WeatherUseCase.knownWeather["Busan"] }
        await store.receive { $0.isLoading = false }
        await store.finish()
    }

    @Test(arguments: [WeatherUseCase.failing, WeatherUseCase.test([:])])
    func failedOrEmptySearchOnlyTogglesLoading(useCase: WeatherUseCase) async {
        let store = TestStore(reactor: SearchViewReactor(weatherUseCase: useCase))

        await store.send(.searchCityWeather("Atlantis")) { $0.isLoading = true }
        await store.receive { $0.isLoading = false }
        await store.finish()

        #expect(store.state.weather == nil)
    }

    @Test func liveUseCaseWorksOnTheLiveClock() async {
        let runtime = ReactorRuntime(reactor: SearchViewReactor(weatherUseCase: .live()))
        let (states, observation) = runtime.recordStates()

        runtime.send(.searchCityWeather("Busan"))
        await runtime.waitUntilIdle()

        #expect(states.values == [
            .init(weather: nil, isLoading: true),
            .init(weather: WeatherUseCase.knownWeather["Busan"], isLoading: true),
            .init(weather: WeatherUseCase.knownWeather["Busan"], isLoading: false),
        ])
        observation.cancel()
    }
}
