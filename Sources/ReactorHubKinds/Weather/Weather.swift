/// The weather of one city, as the data file and the `weather` state hold it.
public struct Weather: Codable, Sendable, Equatable {
    public var city: String
    public var temperature: Double
    public var condition: String
    public var humidity: Int

    public init(city: String, temperature: Double, condition: String, humidity: Int) {
        self.city = city
        self.temperature = temperature
        self.condition = condition
        self.humidity = humidity
    }
}
