// Ported from rasti-ai's shared test tool `GoalsByPlayer`
// (`Rasti::Form[player: Rasti::Types::String, team: Rasti::Types::String]`). Rasti derives the
// name with `Inflecto.underscore` (`goals_by_player`), and form attributes are required only
// when declared `required`, so both parameters are optional here. The second tool shows the
// rest of rasti's ToolSerializer type mapping: symbol, integer, float, boolean, time
// (`format: date`), enum, array, nested model, hash and any.

/// Return how many goals a player has scored for a team.
@read_only
tool goals_by_player {
  /// The player's name.
  player?: string
  /// The team's name.
  team?: string
}

/// A team in a match (a nested `Rasti::Model`).
type Side {
  /// The team's name.
  team: string
  /// Goals scored.
  goals: integer @min(0)
}

/// Find the matches played on a day.
@read_only
tool matches_on {
  /// The day (rasti's `:time`, serialized as `format: date`).
  date: string @format(date)
  /// The competition (rasti's `:symbol`).
  competition?: string
  /// The stage of the competition (rasti's `:enum`).
  stage?: "group" | "knockout" | "final"
  /// Only matches with at least this many goals (rasti's `:integer`).
  min_goals?: integer
  /// Only matches with at most this average possession in percent (rasti's `:float`).
  max_possession?: number
  /// Include friendlies (rasti's `:boolean`).
  friendlies?: boolean
  /// The teams to look for (rasti's `:array`).
  teams?: string[]
  /// Only matches between these two sides (rasti's `:model`).
  sides?: { home?: Side, away?: Side }
  /// Free provider options (rasti's `:hash`).
  options?: map<any>
  /// Anything else (rasti's `:any`: no constraints).
  extra?: any
}
