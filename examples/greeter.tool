// Ported from Ask::Tool's `Greeter` example (`param :name, type: :string, required: true`), and
// the `params do ... end` schema block from the same page (a string and a string enum). Ask
// derives the tool name from the class name (`Greeter` → `greeter`); in `.tool` files the name
// is written out.

/// Greets a person by name.
tool greeter {
  /// The person's name.
  name: string
}

/// Get the current weather for a location.
tool weather {
  /// City name.
  location: string
  /// The temperature unit of the answer.
  unit?: "celsius" | "fahrenheit"
}
