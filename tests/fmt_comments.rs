//! The formatter is idempotent and keeps every comment, in source order, wherever comments sit:
//! random sources built from a template of items are given `//` comments and blank lines at
//! random gaps between their tokens, then formatted twice.
//!
//! `PROPTEST_CASES=1000000 cargo test --release --test fmt_comments` runs a million cases.

use proptest::prelude::*;

/// The tokens of a source that uses every construct the printer lays out differently: doc
/// comments, attributes joined on one line, inline objects (one line and several), unions,
/// defaults, enums, aliases and tuples. `\n` is a line break.
const TOKENS: &[&str] = &[
    "/// A unit.",
    "\n",
    "enum",
    "Unit",
    "{",
    "\n",
    "/// Celsius.",
    "\n",
    "c",
    "\n",
    "f",
    "\n",
    "}",
    "\n",
    "\n",
    "type",
    "Id",
    "=",
    "string",
    "@min_length(1)",
    "@max_length(8)",
    "\n",
    "\n",
    "/// A place.",
    "\n",
    "@deprecated",
    "\n",
    "type",
    "Place",
    "{",
    "\n",
    "name",
    ":",
    "string",
    "\n",
    "at",
    "?:",
    "{",
    "lat",
    ":",
    "number",
    ",",
    "lon",
    ":",
    "number",
    "}",
    "|",
    "null",
    "\n",
    "}",
    "\n",
    "\n",
    "/// Get the weather.",
    "\n",
    "@read_only",
    "\n",
    "@title(\"Weather\")",
    "\n",
    "@retry(times: 2, wait: linear, base: 0.5)",
    "\n",
    "tool",
    "get",
    "->",
    "Place",
    "{",
    "\n",
    "/// The city.",
    "\n",
    "city",
    ":",
    "Id",
    "\n",
    "unit",
    "?:",
    "Unit",
    "=",
    "\"c\"",
    "\n",
    "days",
    "?:",
    "integer",
    "@min(1)",
    "@max(14)",
    "=",
    "1",
    "\n",
    "pair",
    "?:",
    "[",
    "number",
    ",",
    "string",
    "?",
    "]",
    "\n",
    "deep",
    "?:",
    "{",
    "\n",
    "a",
    ":",
    "{",
    "b",
    ":",
    "string",
    "}",
    "\n",
    "c",
    "?:",
    "string",
    "[]",
    "\n",
    "}",
    "\n",
    "}",
    "\n",
];

/// The source with a comment inserted before token `i` for each `i` in `at` (a comment runs to
/// the end of its line, so a line break follows it), and a blank line before token `i` for each
/// `i` in `blanks` (after the comments there).
fn with_comments(at: &[usize], blanks: &[usize]) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut comments = Vec::new();
    for (i, t) in TOKENS.iter().enumerate() {
        for _ in at.iter().filter(|&&a| a == i) {
            let c = format!("// c{}", comments.len());
            let line = out.rsplit('\n').next().unwrap_or("");
            if line.trim_start().starts_with("///") {
                // After a doc comment's text, `//` would be part of the text.
                out.push('\n');
            } else if !out.ends_with('\n') && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&c);
            out.push('\n');
            comments.push(c);
        }
        for _ in blanks.iter().filter(|&&b| b == i) {
            let line = out.rsplit('\n').next().unwrap_or("");
            if !line.trim_start().starts_with("///") {
                // A blank line inside a doc comment would end it; elsewhere it is layout only.
                out.push_str("\n\n");
            }
        }
        if *t == "\n" {
            out.push('\n');
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(t);
        }
    }
    (out, comments)
}

/// The comments of a formatted source, in order.
fn comments_in(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.find("// c").map(|i| l[i..].trim().to_string()))
        .collect()
}

fn schema(source: &str) -> Option<serde_json::Value> {
    let module = tooldef::compile(source).ok()?.module;
    let out = tooldef::emit::tools(
        &module,
        tooldef::emit::Target::JsonSchema,
        &tooldef::emit::Options::default(),
    );
    out.ok().map(|e| e.json)
}

#[test]
fn the_template_compiles() {
    let (source, _) = with_comments(&[], &[]);
    assert!(schema(&source).is_some(), "{source}");
}

/// Found by the `fmt` fuzz target: a comment after a tool's name, then another and blank lines
/// before its `{`. The first run moves both inside the braces; the second added a blank line
/// before the second comment, counting the blank after it as one before it.
#[test]
fn blank_lines_after_a_leading_comment_are_not_counted_before_it() {
    for source in [
        "tool t // a\n//b\n\n\n{\n  x: string\n}\n",
        "tool t { // a\n  //b\n\n  x: string\n}\n",
        "enum E { // a\n  //b\n\n  x\n}\n",
        "tool t {\n  x: string // a\n\n  // b\n\n  y: string\n}\n",
    ] {
        let once = tooldef::format(source).expect("formats");
        let twice = tooldef::format(&once).expect("formats again");
        assert_eq!(twice, once, "not idempotent for:\n{source}");
    }
}

proptest! {
    #[test]
    fn fmt_is_idempotent_and_keeps_every_comment_in_order(
        at in prop::collection::vec(0..TOKENS.len(), 0..8),
        blanks in prop::collection::vec(0..TOKENS.len(), 0..4),
    ) {
        let (source, comments) = with_comments(&at, &blanks);
        let once = match tooldef::format(&source) {
            Ok(s) => s,
            // A comment where the grammar takes none (inside an attribute's parentheses is
            // not generated; a doc comment must stay next to its item): the file is left alone.
            Err(_) => return Ok(()),
        };
        let twice = tooldef::format(&once).expect("formatted output formats");
        prop_assert_eq!(&twice, &once, "not idempotent for:\n{}", source);
        prop_assert_eq!(comments_in(&once), comments, "comments lost or reordered:\n{}\n--\n{}", source, once);
        prop_assert_eq!(schema(&once), schema(&source), "meaning changed:\n{}", source);
    }
}
