// A Pikuri-style tool (Pikuri::Tool::Parameters) using every parameter kind Pikuri has:
// required and optional string, integer, number, boolean and enum (a string constrained to a
// fixed set of values), and a required string array. Like Pikuri's `to_h`, the schema lists the
// required parameters; unlike it, the object is closed (`additionalProperties: false`), matching
// Pikuri's validator, which rejects unknown keys. Pikuri coerces by default, so the tool is `@lax`.

/// Create a task in the user's task list.
@lax
tool create_task {
  /// The task's title. (required_string)
  title: string
  /// Longer notes. (optional_string)
  notes?: string
  /// Priority, 1 being the most urgent. (required_integer)
  priority: integer
  /// Position in the list; appended at the end when omitted. (optional_integer)
  position?: integer
  /// Budget in euros. (required_number)
  budget: number
  /// Estimated effort in hours. (optional_number)
  estimate_hours?: number
  /// Whether the task blocks other work. (required_boolean)
  blocking: boolean
  /// Whether to notify the watchers. (optional_boolean)
  notify?: boolean
  /// The initial state. (required_enum)
  status: "todo" | "doing" | "done"
  /// Who can see the task. (optional_enum)
  visibility?: "private" | "team" | "public"
  /// Labels; may be empty. (required_string_array)
  labels: string[]
}
