public import Reactor

/// The weather search of seed 003 (MVVM refactored to ReactorKit), shared: a search sets
/// `isLoading`, looks the city up through the injected use case, sets the weather and
/// clears `isLoading`. A search while one is loading is ignored, as in the seed; an
/// unknown city leaves the weather as it was and pulses `errorMessage` once `isLoading`
/// is false again.
public final class WeatherReactor: Reactor {
    public enum Action: Codable, Sendable, Equatable {
        /// 도시의 날씨 검색 (search a city's weather)
        case searchCityWeather(city: String)
    }

    public enum Mutation: Sendable {
        /// 도시 날씨 정보 세팅 (set the city's weather)
        case setCityWeather(Weather)
        /// 로딩 중 세팅 (set loading)
        case setLoading(Bool)
        case setErrorMessage(String)
    }

    public struct State: Codable, Sendable, Equatable {
        /// 검색한 도시의 날씨 (the searched city's weather)
        public var weather: Weather?
        /// 로딩 중 (loading)
        public var isLoading: Bool
        @Pulse public var errorMessage: String?

        private enum CodingKeys: String, CodingKey {
            case weather, isLoading, errorMessage
        }

        public init(weather: Weather?, isLoading: Bool) {
            self.weather = weather
            self.isLoading = isLoading
        }

        /// Writes `weather` as `null` when there is none, so the state's shape never changes.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(weather, forKey: .weather)
            try container.encode(isLoading, forKey: .isLoading)
            try container.encode(_errorMessage, forKey: .errorMessage)
        }
    }

    private let weatherUseCase: WeatherUseCase
    public let initialState: State

    public init(weatherUseCase: WeatherUseCase) {
        self.weatherUseCase = weatherUseCase
        initialState = State(
            weather: nil,
            isLoading: false
        )
    }

    /// The longest city name searched for (it is echoed in `errorMessage`).
    static let maxCityBytes = 200

    // Action -> Mutation
    public func mutate(action: Action) throws -> Effect<Mutation> {
        switch action {
        case let .searchCityWeather(cityName):
            guard cityName.utf8.count <= Self.maxCityBytes else {
                throw ActionRefusal("a city name takes at most \(Self.maxCityBytes) bytes, got \(cityName.utf8.count)")
            }
            return performSearchCityWeather(cityName: cityName)
        }
    }

    // Mutation -> State
    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case let .setCityWeather(weather):
            state.weather = weather

        case let .setLoading(isLoading):
            state.isLoading = isLoading

        case let .setErrorMessage(message):
            state.errorMessage = message
        }
        return state
    }

    /// 도시의 날씨 가져오기 (fetch the city's weather)
    func performSearchCityWeather(cityName: String) -> Effect<Mutation> {
        if currentState.isLoading { return .empty() }
        let weatherUseCase = self.weatherUseCase
        return .concat(
            .just(.setLoading(true)),
            .run { send in
                do {
                    let weather = try await weatherUseCase.getCityWeather(cityName)
                    await send(.setCityWeather(weather))
                    await send(.setLoading(false))
                } catch {
                    await send(.setLoading(false))
                    await send(.setErrorMessage("no weather found for '\(cityName)'"))
                }
            }
        )
    }
}
