// Search tools: maps and open objects. OpenAI strict mode and gemini-openapi need every key
// declared, so these tools compile only for the other targets (openai-responses falls back to
// `"strict": false`).

/// A search result's extra data: known keys, and any others the index stores.
type Metadata {
  /// Where the document came from.
  source: string
  /// When it was last indexed.
  indexed_at?: string @format(date-time)
  ...
}

/// Search the document index.
@read_only @open_world
tool search_documents -> {
  hits: {
    id: string
    score: number @min(0) @max(1)
    metadata: Metadata
  }[]
} {
  /// The query, in plain words.
  query: string @min_length(1) @max_length(500)
  /// Exact-match filters: field name to required value.
  filters?: map<string | number | boolean>
  /// How many results to return.
  limit?: integer @min(1) @max(100) = 10
  /// Weights per field, between 0 and 10.
  boosts?: map<number @min(0) @max(10)>
}

/// Store a document in the index.
tool index_document {
  /// The document's text.
  text: string @min_length(1)
  /// Any extra data to keep with the document.
  metadata?: Metadata
  /// Arbitrary JSON the caller wants echoed back.
  context?: any
}
