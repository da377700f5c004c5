import ReactorHubJSON
import ReactorHubEngine
import ReactorHubKinds

/// Registers the kinds the daemon ships (CONFIG.md "The shipped reactor kinds") with
/// their settings from the configuration.
enum ShippedKinds {
    static func register(into registry: ReactorRegistry, for configuration: Configuration) throws {
        let settings = configuration.reactors
        let counterDelay = Duration.milliseconds(settings.counter.delayMs)
        // Counter and weather come back with isLoading false: the effects that would have
        // cleared it died with the old process.
        registry.register("counter", restore: { state in
            var state = state
            state.isLoading = false
            return state
        }) { CounterReactor(delay: counterDelay) }

        let cities = try WeatherUseCase.loadCities(fromFile: settings.weather.dataFile)
        let weather = WeatherUseCase.offline(cities: cities, latency: .milliseconds(settings.weather.latencyMs))
        registry.register("weather", restore: { state in
            var state = state
            state.isLoading = false
            return state
        }) { WeatherReactor(weatherUseCase: weather) }

        let todoLimits = TodoLimits(
            maxItems: settings.todo.maxItems, maxTitleLength: settings.todo.maxTitleLength, maxTitleBytes: settings.todo.maxTitleBytes
        )
        registry.register("todo") { TodoReactor(limits: todoLimits) }

        let docLimits = DocumentLimits(
            maxBytes: settings.doc.maxBytes, maxDepth: settings.doc.maxDepth, maxElements: settings.doc.maxElements,
            maxOperations: settings.doc.maxOperations
        )
        registry.register("doc") { DocReactor(limits: docLimits) }
    }
}
