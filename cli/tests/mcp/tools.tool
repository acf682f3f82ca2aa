//! Tools for testing `tooldef serve`: each handler is a small script in handlers/.

/// Echo the arguments back, as the handler received them.
tool echo {
  /// A message.
  message: string @min_length(1)
  /// How many times.
  times?: integer @min(1) @max(5) = 1
  /// Tags.
  tags?: string[]
}

/// Add two numbers.
tool add -> { sum: number } {
  a: number
  b?: number = 1
}

/// Return a result that does not fit the output type.
tool wrong_output -> { sum: number } {
  a: number
}

/// Sleep, reporting nothing, then answer.
tool slow {
  /// Seconds to sleep.
  seconds: number @min(0) @max(60)
}

/// Fail with an error.
tool crash {
  reason?: string
}

/// Delete a file (needs a human's approval).
@requires_approval @destructive
tool delete_file {
  path: string
}

/// A tool no command is bound to.
tool unbound {
  x?: integer
}
