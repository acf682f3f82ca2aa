// Weather tools, ported from Intelligence::Tool's get_weather_by_locality and extended with every
// kind of parameter the language offers.

/// Temperature unit.
enum Unit {
  /// Degrees Celsius.
  celsius
  /// Degrees Fahrenheit.
  fahrenheit
}

/// A point on Earth.
type Location {
  /// Latitude in degrees.
  lat: number @min(-90) @max(90)
  /// Longitude in degrees.
  lon: number @min(-180) @max(180)
}

/// What the tool returns.
type WeatherReport {
  /// Temperature in the requested unit.
  temperature: number
  /// A short summary such as "light rain".
  conditions: string
}

/// Return the current weather in a given locality (city, state or province, and country).
@title("Weather by locality") @read_only @idempotent @open_world
tool get_weather_by_locality -> WeatherReport {
  /// The city or town for which the current weather should be returned.
  city: string @min_length(1)
  /// The state or province. If omitted, the most prominent city of that name is assumed.
  state?: string
  /// The country, as an English name or ISO 3166 code.
  country: string
  /// The temperature unit of the answer.
  unit?: Unit = "celsius"
  /// Forecast length in days.
  days?: integer @min(1) @max(14) = 1
  /// The format of the returned report.
  format?: "html" | "markdown" = "markdown"
  /// Free labels to attach to the request.
  tags?: string[] @max_items(10) @unique
  /// Exact coordinates, when known; they take precedence over the names.
  at?: Location | null
  /// Extra key-value labels.
  labels?: map<string>
  /// The name of the person asking, for a greeting.
  "first-name"?: string
}
