//! `tooldef::diff`: hand-written pairs of tool versions, each with the class (and the path) the
//! change must get. The property test beside it (`tests/diff_props.rs`) checks the verdicts
//! against the validators.

use tooldef::{diff, Change, ChangeKind};
use ChangeKind::{Breaking, Compatible, Model, Safety};

fn module(source: &str) -> tooldef::Module {
    match tooldef::compile(source) {
        Ok(c) => c.module,
        Err(e) => panic!("{source}\ndoes not compile: {e:?}"),
    }
}

/// The changes from a tool `t` with parameters `old` to one with parameters `new` (each the body
/// between the braces, with whatever types `defs` defines).
fn changes(defs: &str, old: &str, new: &str) -> Vec<Change> {
    let a = module(&format!("{defs}\n/// T.\ntool t {{ {old} }}"));
    let b = module(&format!("{defs}\n/// T.\ntool t {{ {new} }}"));
    diff(&a, &b)
}

/// Asserts exactly one change, of `kind`, at `path`.
#[track_caller]
fn one(changes: &[Change], kind: ChangeKind, path: &str) {
    assert_eq!(
        changes.len(),
        1,
        "expected one {kind:?} change at {path}, got {changes:#?}"
    );
    assert_eq!(changes[0].kind, kind, "{changes:#?}");
    assert_eq!(changes[0].path, path, "{changes:#?}");
    assert_eq!(changes[0].tool, "t");
    assert!(!changes[0].message.is_empty());
}

const P: &str = "/inputSchema";

fn at(field: &str) -> String {
    format!("{P}/properties/{field}")
}

#[test]
fn unchanged_tools_have_no_changes() {
    let source = "type N { next?: N, v: integer }\n/// T.\n@read_only\ntool t { a: N, b?: string[] @unique }";
    assert_eq!(diff(&module(source), &module(source)), vec![]);
}

#[test]
fn a_tool_removed_or_renamed_is_breaking_and_one_added_compatible() {
    let old = module("/// A.\ntool get_weather { a: string }");
    let new = module("/// A.\ntool get_weathers { a: string }");
    let changes = diff(&old, &new);
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert_eq!(
        (changes[0].tool.as_str(), changes[0].kind),
        ("get_weather", Breaking)
    );
    assert!(changes[0].message.contains("get_weathers"), "{changes:#?}");
    assert_eq!(
        (changes[1].tool.as_str(), changes[1].kind),
        ("get_weathers", Compatible)
    );
    assert_eq!(changes[1].path, "");
}

#[test]
fn fields_added_removed_and_made_required() {
    one(
        &changes("", "a: string", "a: string, b: integer"),
        Breaking,
        &at("b"),
    );
    one(
        &changes("", "a: string", "a: string, b?: integer"),
        Compatible,
        &at("b"),
    );
    one(&changes("", "a?: string", "a: string"), Breaking, &at("a"));
    one(
        &changes("", "a: string", "a?: string"),
        Compatible,
        &at("a"),
    );
    // Removed from a closed object: a call that sends it is rejected.
    one(
        &changes("", "a: string, b?: string", "a: string"),
        Breaking,
        &at("b"),
    );
    // Removed from an open one: the key is still accepted.
    one(
        &changes("", "a: string, b?: string ...", "a: string ..."),
        Compatible,
        &at("b"),
    );
    // Added to an open object, narrowing what the key took.
    one(
        &changes("", "a: string ...", "a: string, b?: integer ..."),
        Breaking,
        &at("b"),
    );
}

#[test]
fn types_narrowed_are_breaking_and_widened_compatible() {
    one(&changes("", "a: number", "a: integer"), Breaking, &at("a"));
    one(
        &changes("", "a: integer", "a: number"),
        Compatible,
        &at("a"),
    );
    one(
        &changes("", "a: string | integer", "a: string"),
        Breaking,
        &at("a"),
    );
    one(
        &changes("", "a: string", "a: string | integer"),
        Compatible,
        &at("a"),
    );
    one(
        &changes("", "a: string | null", "a: string"),
        Breaking,
        &at("a"),
    );
    one(
        &changes("", "a: string", "a: string | null"),
        Compatible,
        &at("a"),
    );
    one(&changes("", "a: any", "a: string"), Breaking, &at("a"));
    one(&changes("", "a: boolean", "a: true"), Breaking, &at("a"));
    // The same values, written another way.
    assert_eq!(changes("", "a: boolean", "a: true | false"), vec![]);
    one(&changes("", "a: boolean", "a: string"), Breaking, &at("a"));
}

#[test]
fn enum_values_and_literals() {
    one(
        &changes("", r#"u: "c" | "f" | "k""#, r#"u: "c" | "f""#),
        Breaking,
        &at("u"),
    );
    one(
        &changes("", r#"u: "c" | "f""#, r#"u: "c" | "f" | "k""#),
        Compatible,
        &at("u"),
    );
    let defs_old = "enum U { c, f, k }";
    let a = module(&format!("{defs_old}\n/// T.\ntool t {{ u: U }}"));
    let b = module("enum U { c, f }\n/// T.\ntool t { u: U }");
    one(&diff(&a, &b), Breaking, &at("u"));
    // A literal the new type still accepts.
    one(&changes("", r#"u: "c""#, "u: string"), Compatible, &at("u"));
    one(
        &changes("", "u: 1 | 2", "u: integer @min(1) @max(2)"),
        Compatible,
        &at("u"),
    );
    one(
        &changes("", "u: 1 | 3", "u: integer @min(1) @max(2)"),
        Breaking,
        &at("u"),
    );
}

#[test]
fn numeric_bounds() {
    one(
        &changes("", "n: integer @min(1)", "n: integer @min(2)"),
        Breaking,
        &at("n"),
    );
    one(
        &changes("", "n: integer @min(2)", "n: integer @min(1)"),
        Compatible,
        &at("n"),
    );
    one(
        &changes("", "n: integer @max(9)", "n: integer @max(8)"),
        Breaking,
        &at("n"),
    );
    one(
        &changes("", "n: integer", "n: integer @max(8)"),
        Breaking,
        &at("n"),
    );
    one(
        &changes("", "n: number @min(0)", "n: number @exclusive_min(0)"),
        Breaking,
        &at("n"),
    );
    one(
        &changes("", "n: number @exclusive_min(0)", "n: number @min(0)"),
        Compatible,
        &at("n"),
    );
    one(
        &changes("", "n: number @max(1)", "n: number @exclusive_max(1)"),
        Breaking,
        &at("n"),
    );
    one(
        &changes(
            "",
            "n: integer @multiple_of(2)",
            "n: integer @multiple_of(4)",
        ),
        Breaking,
        &at("n"),
    );
    one(
        &changes(
            "",
            "n: integer @multiple_of(4)",
            "n: integer @multiple_of(2)",
        ),
        Compatible,
        &at("n"),
    );
    // 1.0 and 1 bound alike.
    assert_eq!(
        changes("", "n: number @min(1)", "n: number @min(1.0)"),
        vec![]
    );
}

#[test]
fn string_and_array_bounds() {
    one(
        &changes("", "s: string @min_length(1)", "s: string @min_length(2)"),
        Breaking,
        &at("s"),
    );
    one(
        &changes("", "s: string @max_length(9)", "s: string @max_length(8)"),
        Breaking,
        &at("s"),
    );
    one(
        &changes("", "s: string @max_length(8)", "s: string @max_length(9)"),
        Compatible,
        &at("s"),
    );
    one(
        &changes("", "s: string", r#"s: string @pattern("^a")"#),
        Breaking,
        &at("s"),
    );
    one(
        &changes(
            "",
            r#"s: string @pattern("^a")"#,
            r#"s: string @pattern("^b")"#,
        ),
        Breaking,
        &at("s"),
    );
    one(
        &changes("", r#"s: string @pattern("^a")"#, "s: string"),
        Compatible,
        &at("s"),
    );
    one(
        &changes("", "s: string", "s: string @format(date)"),
        Breaking,
        &at("s"),
    );
    one(
        &changes("", "l: string[]", "l: string[] @unique"),
        Breaking,
        &at("l"),
    );
    one(
        &changes("", "l: string[] @unique", "l: string[]"),
        Compatible,
        &at("l"),
    );
    one(
        &changes("", "l: string[]", "l: string[] @min_items(1)"),
        Breaking,
        &at("l"),
    );
    one(
        &changes("", "l: string[] @max_items(3)", "l: string[] @max_items(2)"),
        Breaking,
        &at("l"),
    );
    one(
        &changes("", "l: string[]", "l: integer[]"),
        Breaking,
        &format!("{}/items", at("l")),
    );
    one(
        &changes("", "l: [string, integer?]", "l: [string, integer]"),
        Breaking,
        &at("l"),
    );
    one(
        &changes("", "l: [string, integer]", "l: [string, integer?]"),
        Compatible,
        &at("l"),
    );
    one(
        &changes("", "l: [string, integer]", "l: string[]"),
        Breaking,
        &at("l"),
    );
    one(
        &changes("", "l: [string, string]", "l: string[]"),
        Compatible,
        &at("l"),
    );
}

#[test]
fn other_keys_closed_and_nested_objects() {
    one(
        &changes("", "a: string ...", "a: string"),
        Breaking,
        &format!("{P}/additionalProperties"),
    );
    one(
        &changes("", "a: string", "a: string ..."),
        Compatible,
        &format!("{P}/additionalProperties"),
    );
    one(
        &changes("", "m: map<string>", "m: map<integer>"),
        Breaking,
        &format!("{}/additionalProperties", at("m")),
    );
    one(
        &changes("", "o: { x: integer, y?: string }", "o: { x: integer }"),
        Breaking,
        &format!("{}/properties/y", at("o")),
    );
    one(
        &changes("", "a: string, ...: integer", "a: string, ...: number"),
        Compatible,
        &format!("{P}/additionalProperties"),
    );
}

#[test]
fn recursive_types_terminate() {
    let old = "type N { v: integer, next?: N }";
    let narrower = "type N { v: integer @min(0), next?: N }";
    let c = changes(old, "n: N", "n: N");
    assert_eq!(c, vec![]);
    let a = module(&format!("{old}\n/// T.\ntool t {{ n: N }}"));
    let b = module(&format!("{narrower}\n/// T.\ntool t {{ n: N }}"));
    one(
        &diff(&a, &b),
        Breaking,
        &format!("{}/properties/v", at("n")),
    );
    // The same recursive shape under another name, and unrolled once.
    let renamed = module("type M { v: integer, next?: M }\n/// T.\ntool t { n: M }");
    assert_eq!(diff(&a, &renamed), vec![]);
    let unrolled =
        module("type N { v: integer, next?: N }\n/// T.\ntool t { n: { v: integer, next?: N } }");
    assert_eq!(diff(&a, &unrolled), vec![]);
    // A recursive type inside a union on both sides.
    let u_old = module("type T { c?: T | string }\n/// T.\ntool t { n: T | null }");
    let u_new = module("type T { c?: T | string | integer }\n/// T.\ntool t { n: T | null }");
    let forward = diff(&u_old, &u_new);
    assert!(
        forward.iter().all(|c| c.kind == Compatible) && !forward.is_empty(),
        "{forward:#?}"
    );
    let back = diff(&u_new, &u_old);
    assert!(back.iter().any(|c| c.kind == Breaking), "{back:#?}");
}

#[test]
fn safety_attributes() {
    let tool = |attrs: &str| module(&format!("/// T.\n{attrs}\ntool t {{ a: string }}"));
    let cases = [
        ("@read_only", "", "/annotations/readOnlyHint"),
        ("@idempotent", "", "/annotations/idempotentHint"),
        ("@requires_approval", "", "/requires_approval"),
        ("", "@destructive", "/annotations/destructiveHint"),
        ("", "@open_world", "/annotations/openWorldHint"),
        ("@destructive(false)", "", "/annotations/destructiveHint"),
    ];
    for (old, new, path) in cases {
        one(&diff(&tool(old), &tool(new)), Safety, path);
        // The other way round is no safety change.
        let back = diff(&tool(new), &tool(old));
        assert!(
            back.iter().all(|c| c.kind == Compatible),
            "{old} -> {new}: {back:#?}"
        );
    }
}

#[test]
fn what_the_model_reads() {
    let a = module("/// Add two numbers.\ntool t { a: integer }");
    let b = module("/// Add two integers.\ntool t { a: integer }");
    one(&diff(&a, &b), Model, "/description");
    let a = module("/// T.\n@title(\"One\")\ntool t { a: integer }");
    let b = module("/// T.\n@title(\"Two\")\ntool t { a: integer }");
    one(&diff(&a, &b), Model, "/title");
    one(
        &changes(
            "",
            "/// The count.\na: integer",
            "/// The number.\na: integer",
        ),
        Model,
        &at("a"),
    );
    one(
        &changes("", "a?: integer = 1", "a?: integer = 2"),
        Model,
        &at("a"),
    );
    one(
        &changes("", "a: integer @example(1)", "a: integer @example(2)"),
        Model,
        &at("a"),
    );
    let a = module("/// A place.\ntype P { x: integer }\n/// T.\ntool t { p: P }");
    let b = module("/// A point.\ntype P { x: integer }\n/// T.\ntool t { p: P }");
    one(&diff(&a, &b), Model, &at("p"));
}

#[test]
fn mode_and_output() {
    let tool =
        |attrs: &str, out: &str| module(&format!("/// T.\n{attrs}\ntool t {out} {{ a: string }}"));
    one(
        &diff(&tool("@lax", ""), &tool("@strict", "")),
        Breaking,
        "/mode",
    );
    one(
        &diff(&tool("@strict", ""), &tool("@lax", "")),
        Compatible,
        "/mode",
    );
    // An output is read by the caller: widening it breaks them.
    one(
        &diff(
            &tool("", "-> { n: integer }"),
            &tool("", "-> { n: number }"),
        ),
        Breaking,
        "/outputSchema",
    );
    one(
        &diff(
            &tool("", "-> { n: number }"),
            &tool("", "-> { n: integer }"),
        ),
        Compatible,
        "/outputSchema",
    );
    one(
        &diff(&tool("", "-> { n: integer }"), &tool("", "")),
        Breaking,
        "/outputSchema",
    );
}

#[test]
fn classes_serialize_in_lowercase() {
    let json = serde_json::to_value(ChangeKind::Breaking).unwrap();
    assert_eq!(json, "breaking");
    assert!(Breaking.needs_review() && Safety.needs_review());
    assert!(!Model.needs_review() && !Compatible.needs_review());
}

#[test]
fn a_union_member_narrowed_is_reported_inside_the_member() {
    let c = changes(
        "",
        "u: { k: \"a\", s: string } | { k: \"b\", n: integer }",
        "u: { k: \"a\", s: string @min_length(1) } | { k: \"b\", n: integer }",
    );
    one(&c, Breaking, &format!("{}/anyOf/0/properties/s", at("u")));
    assert!(
        c[0].message.contains("min_length raised from 0 to 1"),
        "{c:#?}"
    );
    // Members swapped: the same values, no change.
    let swapped = changes("", "u: string | integer", "u: integer | string");
    assert_eq!(swapped, vec![]);
}

#[test]
fn rules_across_keys_added_are_breaking_and_removed_compatible() {
    let pair = "o?: { a?: string, b?: string }";
    let ruled = "o?: { a?: string, b?: string } @exactly_one_of(a, b)";
    one(&changes("", pair, ruled), Breaking, &at("o"));
    one(&changes("", ruled, pair), Compatible, &at("o"));
    one(
        &changes(
            "",
            "m: map<string> @max_properties(5)",
            "m: map<string> @max_properties(3)",
        ),
        Breaking,
        &at("m"),
    );
    one(
        &changes(
            "",
            "m: map<string> @max_properties(3)",
            "m: map<string> @max_properties(5)",
        ),
        Compatible,
        &at("m"),
    );
    assert!(changes("", ruled, ruled).is_empty());
}

/// Pins what pairing by index must keep from the scan it replaced: which tools pair, the order
/// of the report and the rename named. The index's speed is shown by the `hostile` benchmark's
/// `diff:` shapes, not here.
#[test]
fn tools_are_paired_by_name_and_a_removed_one_names_its_likely_rename() {
    let old = module("/// A.\ntool get_weather {}\n/// B.\ntool keep { a: string }\n");
    let new = module(
        "/// B.\ntool keep { a: integer }\n/// A.\ntool get_weather_now {}\n/// C.\ntool unrelated {}\n",
    );
    let c = diff(&old, &new);
    let seen: Vec<(&str, ChangeKind, &str)> = c
        .iter()
        .map(|c| (c.tool.as_str(), c.kind, c.path.as_str()))
        .collect();
    let a = at("a");
    assert_eq!(
        seen,
        [
            ("get_weather", Breaking, ""),
            ("keep", Breaking, a.as_str()),
            ("get_weather_now", Compatible, ""),
            ("unrelated", Compatible, ""),
        ],
        "{c:#?}"
    );
    assert_eq!(
        c[0].message,
        "tool removed (renamed to `get_weather_now`?): calls to it fail"
    );
    assert_eq!(c[2].message, "tool added");
}
