// Ported from Phronomy::Tool::Base's `SearchKnowledgeBase` example (`tool_name "search_kb"`),
// with the rest of Phronomy's tool DSL: `scope`, `on_error`, `on_schema_error` (here `@lax` /
// `@strict`: `:coerce` accepts "42" for 42, the default `:return_error` validates strictly),
// `requires_approval`, `retry_on ... times:, wait:, base:`, `param ... enum:` with string and
// integer values, and `param ... properties:` for a nested object.

// Phronomy coerces the values of an integer enum to integers; here they are integers already.
/// How many results to return.
enum PageSize {
  5
  10
  /// The largest page the knowledge base serves.
  20
}

/// Search the internal knowledge base.
@read_only @scope(read_only) @on_error(suppress) @lax @retry(times: 3, wait: exponential, base: 1.0)
tool search_kb {
  /// Search query.
  query: string @min_length(1)
  /// Language.
  lang?: "en" | "ja" | "fr" = "en"
  /// How many articles to return at most.
  limit?: PageSize = 10
  /// Narrow the search down.
  filters?: {
    /// Only articles in this space.
    space?: string
    /// Only articles updated on or after this day.
    updated_since?: string @format(date)
  }
}

/// Delete an article from the knowledge base. A person approves every call.
@destructive @idempotent @requires_approval @scope(admin) @on_error(raise) @strict @retry(times: 2, wait: 0.5) @meta(owner: "knowledge-team", audit: true)
tool delete_kb_article {
  /// The article's id.
  article_id: string @format(uuid)
  /// Why the article is deleted; kept in the audit log.
  reason: string @min_length(10) @max_length(500)
}
