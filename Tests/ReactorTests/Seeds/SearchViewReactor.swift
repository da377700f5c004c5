import Reactor

/// Seed 003's `SearchViewReactor` (Soma weather app, MVVM refactored to ReactorKit), ported: the
/// RxSwift chain `getCityWeather(...).catchAndReturn(nil).compactMap { $0 }.map(...)` becomes a
/// `run` effect.
final class SearchViewReactor: Reactor {
    enum Action: Sendable {
        /// 도시의 날씨 검색
        case searchCityWeather(String)
    }

    enum Mutation: Sendable {
        /// 도시 날씨 정보 세팅
        case setCityWeather(WeatherVO)
        /// 로딩 중 세팅
        case setLoading(Bool)
    }

    struct State: Sendable, Equatable {
        /// 검색한 도시의 날씨
        var weather: WeatherVO?
        /// 로딩 중
        var isLoading: Bool
    }

    private let weatherUseCase: WeatherUseCase
    let initialState: State

    init(weatherUseCase: WeatherUseCase) {
        self.weatherUseCase = weatherUseCase
        initialState = State(
            weather: nil,
            isLoading: false
        )
    }

    // Action -> Mutation
    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case let .searchCityWeather(cityName):
            return performSearchCityWeather(cityName: cityName)
        }
    }

    // Mutation -> State
    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case let .setCityWeather(weather):
            state.weather = weather

        case let .setLoading(isLoading):
            state.isLoading = isLoading
        }
        return state
    }

    /// 도시의 날씨 가져오기
    func performSearchCityWeather(cityName: String) -> Effect<Mutation> {
        if currentState.isLoading { return .empty() }
        return .concat(
            .just(.setLoading(true)),
            .run { [weatherUseCase] send in
                guard let weather = try? await weatherUseCase.getCityWeather(cityName) else { return }
                await send(.setCityWeather(weather))
            },
            .just(.setLoading(false))
        )
    }
}
