// Ported from Intelligence::Tool's `get_web_page` example (the web browser tool). The seed's
// `format` and `content` arguments are untyped enums whose descriptions name a default; here the
// defaults are declared, so they show up in the schema. The seed's `include_tags` argument has
// no type and an unfinished description; it is read here as a list of HTML tag names to keep.

/// Which part of the page to return.
enum Content {
  /// Only the main content, without header, footer, menus and advertising.
  main
  /// The whole page.
  full
}

/// Return the content of a web page, given the page's URL.
@title("Get web page") @read_only @open_world
tool get_web_page {
  /// The URL of the page, including the scheme.
  url: string @format(uri) @pattern("^https?://") @example("https://example.com") @example("https://www.iana.org/help/example-domains")
  /// The format of the returned content. Ask for `html` only if the user's request requires it.
  format?: "html" | "markdown" = "markdown"
  /// The content of the page to return. Request `full` only if the user's request needs it.
  content?: Content = "main"
  /// When `format` is `html`: the HTML tags to keep (all others are stripped).
  include_tags?: (string @pattern("^[a-z][a-z0-9]*$"))[] @unique @example(["table", "pre"])
}
