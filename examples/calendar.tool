// Calendar tools: every constraint here is accepted by every target, but several targets cannot
// state all of them as schema keywords (integer enums, exclusive bounds, multiples, formats,
// uniqueness, defaults), so they fold them into descriptions.

/// How urgent an event is.
enum Priority {
  /// Can wait.
  1
  /// Normal.
  2
  /// Needs attention today.
  3
}

/// How an event repeats.
enum Recurrence {
  daily
  weekly
  monthly
}

/// Where an event takes place.
type Place {
  /// A street address or room name.
  name: string @min_length(1) @max_length(200)
  /// Latitude in degrees, strictly inside the poles.
  lat?: number @exclusive_min(-90) @exclusive_max(90)
}

/// Create an event in the user's calendar.
@title("Create event") @destructive(false) @idempotent(false) @open_world(false)
tool create_event -> { id: string @format(uuid), created: boolean } {
  /// A short title for the event.
  title: string @min_length(1) @max_length(120)
  /// The day of the event.
  date: string @format(date)
  /// Start time, e.g. "09:30:00Z".
  start?: string @format(time)
  /// Length in minutes, a positive multiple of 5.
  minutes?: integer @exclusive_min(0) @max(1440) @multiple_of(5) @example(30) @example(45) = 30
  /// How urgent the event is.
  priority?: Priority = 2
  /// How the event repeats; null for a one-off event.
  repeat?: Recurrence | null
  /// The place, or null when online.
  place: Place | null
  /// Email addresses of the attendees.
  attendees?: (string @format(email))[] @max_items(50) @unique
  /// A video-call link, when the event is online.
  link?: string @format(uri)
  /// Reminder offsets in minutes before the start.
  reminders?: (integer @min(0) @max(10080))[] @max_items(5)
  /// Share the event with everyone in the calendar.
  public?: boolean = false
  /// Free-form notes. Prefer `title` for what matters.
  notes?: string @max_length(2000) @deprecated
}

/// List the events of one day.
@read_only
tool list_events -> { events: { id: string, title: string }[] } {
  /// The day to list.
  date: string @format(date)
  /// Only events at least this urgent.
  min_priority?: Priority
  /// A time-zone offset in hours, from -12 to +14 in quarter hours.
  offset?: number @min(-12) @max(14) @multiple_of(0.25)
}
