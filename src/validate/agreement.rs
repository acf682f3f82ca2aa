//! The single pass over argument text (read, check, coerce and normalize at once) against the
//! full path (parse, then the run that collects every problem): on random tools and random
//! argument texts, valid and mutated (duplicate keys, escaped keys, odd number spellings, huge
//! numbers, deep nesting, broken text), both give the same verdict, the same normalized
//! arguments (key order included), the same coercions and the same errors, in both modes.
//!
//! The full path is the crate's own (`Validator::validate_full`), so these tests live beside it
//! rather than under `tests/`. The tool and value generators are shared with
//! `tests/validate_props.rs` (`tests/support/random_tools.rs`, which names the crate
//! `tooldef`, as this crate calls itself in its tests).

use proptest::prelude::*;
use serde_json::{json, Value};

use tooldef::validate::{ErrorCode, Limits, Mode, Validator};

#[path = "../../tests/support/random_tools.rs"]
#[allow(unreachable_pub, missing_docs)]
mod random_tools;
use random_tools::*;

// ---------------------------------------------------------------------------------------------
// Argument text, written from a value with random changes

/// A small deterministic generator (xorshift), so that one `u64` from proptest picks every
/// change to a text.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides.max(1)
    }

    /// True about once in `n` times.
    fn one_in(&mut self, n: u64) -> bool {
        self.roll(n) == 0
    }
}

fn write_str(s: &str, escape_all: bool, out: &mut String) {
    if !escape_all {
        out.push_str(&Value::String(s.to_string()).to_string());
        return;
    }
    out.push('"');
    for u in s.encode_utf16() {
        out.push_str(&format!("\\u{u:04x}"));
    }
    out.push('"');
}

/// Writes `v` as JSON, changing it now and then when `mutate` (one change in about `rate`
/// places): the same value spelled differently, or a different text.
fn write(v: &Value, d: &mut Dice, mutate: bool, rate: u64, out: &mut String) {
    if mutate && d.one_in(rate) {
        match d.roll(8) {
            // Deeper than the default limit, or just deep.
            0 => {
                let n = [5, 127, 128, 129, 300][d.roll(5) as usize];
                out.push_str(&"[".repeat(n));
                out.push_str(&"]".repeat(n));
                return;
            }
            1 => {
                out.push_str(" \n\t");
            }
            2 => {
                out.push_str(
                    [
                        "18446744073709551616",
                        "-9223372036854775809",
                        "-0",
                        "-0.0",
                        "1e400",
                        "123456789012345678901234567890",
                        "1E2",
                        "\"\\ud800\"",
                        "\"\\u00e9\\n\"",
                        "\"12\"",
                        "\" 3.0 \"",
                        "\"true\"",
                        "null",
                    ][d.roll(13) as usize],
                );
                return;
            }
            _ => {}
        }
    }
    match v {
        Value::Number(n) if mutate && d.one_in(rate) => {
            // The same number written another way: `2` as `2.0`, `2e0` or `20e-1`.
            match (n.as_i64(), d.roll(3)) {
                (Some(i), 0) => out.push_str(&format!("{i}.0")),
                (Some(i), 1) => out.push_str(&format!("{i}e0")),
                (Some(i), _) => out.push_str(&format!("{}e-1", i * 10)),
                (None, _) => out.push_str(&n.to_string()),
            }
        }
        Value::String(s) => write_str(s, mutate && d.one_in(rate), out),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(x, d, mutate, rate, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            let escape = mutate && d.one_in(rate);
            let mut first = true;
            let mut entry = |k: &str, x: &Value, d: &mut Dice, out: &mut String| {
                if !std::mem::replace(&mut first, false) {
                    out.push(',');
                }
                write_str(k, escape, out);
                out.push(':');
                write(x, d, mutate, rate, out);
            };
            // Keys in another order than declared.
            if mutate && d.one_in(3) {
                for (k, x) in m.iter().rev() {
                    entry(k, x, d, out);
                }
            } else {
                for (k, x) in m {
                    entry(k, x, d, out);
                }
            }
            // A key sent twice: the same value again, or another one.
            if mutate && d.one_in(rate) {
                if let Some((k, x)) = m.iter().next() {
                    if d.one_in(2) {
                        entry(k, x, d, out);
                    } else {
                        entry(k, &json!(null), d, out);
                    }
                }
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The text of `args`: unchanged, or changed in a few places, and now and then cut short or
/// followed by something.
fn text_of(args: &Value, dice: u64, mutate: bool) -> String {
    let mut d = Dice(dice | 1);
    let mut out = String::new();
    write(args, &mut d, mutate, 6, &mut out);
    if mutate {
        match d.roll(12) {
            0 => {
                let mut cut = d.roll(out.len() as u64 + 1) as usize;
                while !out.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.truncate(cut);
            }
            1 => out.push_str(" {}"),
            2 => out.push_str(" \n"),
            _ => {}
        }
    }
    out
}

fn tool_args_text() -> impl Strategy<Value = (Spec, Value, String)> {
    (tool_and_args(), any::<u64>(), proptest::bool::weighted(0.5)).prop_map(
        |((spec, args), dice, mutate)| {
            let text = text_of(&args, dice, mutate);
            (spec, args, text)
        },
    )
}

/// The single pass (`validate_str`, `is_valid`) and the full path (`validate_full`) agree on
/// `text` in both modes: verdict, arguments (key order included), coercions and errors.
fn agree(v: &Validator, text: &str) -> Result<(), TestCaseError> {
    for mode in [Mode::Strict, Mode::Lax] {
        let fast = v.validate_str(text, mode);
        let full = v.validate_full(text, mode);
        prop_assert_eq!(&fast, &full, "{:?} on {}", mode, text);
        if let (Ok(a), Ok(b)) = (&fast, &full) {
            prop_assert_eq!(
                serde_json::to_string(&a.arguments)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?,
                serde_json::to_string(&b.arguments)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?,
                "key order, {:?} on {}",
                mode,
                text
            );
        }
        prop_assert_eq!(
            v.is_valid(text, mode),
            full.is_ok(),
            "is_valid {:?} on {}",
            mode,
            text
        );
        // The value path agrees too, where the text parses as a value and has no problem of
        // the text itself: a duplicate key (which only text can have) or nesting too deep
        // (which text reports with a position as well).
        let text_problem = matches!(&full, Err(e) if e.errors.iter().any(|e| {
            matches!(e.code, ErrorCode::DuplicateKey | ErrorCode::TooDeep)
        }));
        if let (false, Ok(value)) = (text_problem, serde_json::from_str::<Value>(text)) {
            let from_value = v.validate_value(&value, mode).map(|x| x.into_owned());
            prop_assert_eq!(&fast, &from_value, "value path, {:?} on {}", mode, text);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn single_pass_agrees_with_the_full_path((spec, _args, text) in tool_args_text()) {
        let (module, tool) = build(&spec);
        let v = Validator::new(&module, &tool).map_err(|e| TestCaseError::fail(e.to_string()))?;
        agree(&v, &text)?;
        // Tight limits: nesting cut at three levels, and the default mode changed.
        let tight = Validator::new(&module, &tool)
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .with_limits(Limits { max_bytes: Limits::DEFAULT_MAX_BYTES, max_depth: 3 })
            .with_default_mode(Mode::Lax);
        agree(&tight, &text)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases

fn weather() -> Validator {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/weather.tool"),
    )
    .unwrap_or_default();
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("weather.tool compiles: {e:?}"))
        .module;
    Validator::for_tool(&module, "get_weather_by_locality")
        .unwrap_or_else(|e| panic!("the weather tool compiles: {e}"))
}

fn numbers() -> Validator {
    let source = r#"
        /// Numbers.
        tool t {
          i?: integer
          n?: number
          s?: string
          b?: boolean
          big?: integer @min(18446744073709551615)
          l?: integer[] @unique
          e?: 1 | 2 | "x"
          m?: map<integer>
        }
    "#;
    let module = tooldef::compile(source)
        .unwrap_or_else(|e| panic!("the numbers tool compiles: {e:?}"))
        .module;
    Validator::for_tool(&module, "t").unwrap_or_else(|e| panic!("{e}"))
}

fn check(v: &Validator, text: &str) {
    if let Err(e) = agree(v, text) {
        panic!("{e}");
    }
}

#[test]
fn valid_text_is_normalized_in_declaration_order() {
    let v = weather();
    let text = r#"{"days": 3.0, "country": "FR", "at": null, "city": "Paris", "labels": {"b": "x", "a": "y"}}"#;
    check(&v, text);
    let out = v
        .validate_str(text, Mode::Strict)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        serde_json::to_string(&out.arguments).unwrap_or_default(),
        r#"{"city":"Paris","country":"FR","unit":"celsius","days":3,"format":"markdown","at":null,"labels":{"b":"x","a":"y"}}"#
    );
}

/// Keys sent in declaration order, defaults left out: the pass fills the arguments' defaults in
/// at their declared places without normalizing the whole value.
#[test]
fn defaults_are_filled_in_at_their_declared_places() {
    let v = weather();
    let text = r#"{"city": "Paris", "country": "FR", "days": 3, "labels": {"a": "y"}}"#;
    check(&v, text);
    for mode in [Mode::Strict, Mode::Lax] {
        let out = v.validate_str(text, mode).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            serde_json::to_string(&out.arguments).unwrap_or_default(),
            r#"{"city":"Paris","country":"FR","unit":"celsius","days":3,"format":"markdown","labels":{"a":"y"}}"#
        );
    }
}

#[test]
fn lax_coercions_come_in_the_order_of_the_full_run() {
    let v = weather();
    // Sent last, declared first: the full run lists `city` before `days` and `at`.
    let text = r#"{"at": {"lon": "2.35", "lat": "48.85"}, "days": "3", "country": "FR", "state": null, "city": 75}"#;
    check(&v, text);
    let out = v
        .validate_str(text, Mode::Lax)
        .unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = out.coercions.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["/city", "/state", "/days", "/at/lat", "/at/lon"]);
    assert_eq!(out.arguments["at"], json!({"lat": 48.85, "lon": 2.35}));
    assert!(v.validate_str(text, Mode::Strict).is_err());
}

#[test]
fn numbers_keep_their_meaning() {
    let v = numbers();
    for text in [
        r#"{"i": -0}"#,
        r#"{"n": -0}"#,
        r#"{"n": -0.0, "i": 2e0}"#,
        r#"{"i": 18446744073709551615}"#,
        r#"{"i": 18446744073709551616}"#,
        r#"{"n": 123456789012345678901234567890}"#,
        r#"{"big": 18446744073709551615}"#,
        r#"{"big": 18446744073709551616}"#,
        r#"{"big": 1e19}"#,
        r#"{"i": -9223372036854775809}"#,
        r#"{"n": 1e400}"#,
        r#"{"s": 1e300}"#,
        r#"{"s": -0}"#,
        r#"{"i": "-0"}"#,
        r#"{"l": [1, 1.0]}"#,
        r#"{"l": [1, "1"]}"#,
        r#"{"l": [1, 2.0, "3"]}"#,
        r#"{"e": 1.0}"#,
        r#"{"e": "2"}"#,
        r#"{"m": {"a": "1", "b": 2.0, "a\u0000": 3}}"#,
    ] {
        check(&v, text);
    }
    // A number field is a double: beyond u64 the text reads as the nearest one. An integer
    // field refuses that double (it may not be the integer written).
    let out = v
        .validate_str(r#"{"n": 18446744073709551616, "i": -0}"#, Mode::Strict)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.arguments["n"], json!(18446744073709551616.0));
    assert_eq!(
        serde_json::to_string(&out.arguments).unwrap_or_default(),
        r#"{"i":0,"n":1.8446744073709552e+19}"#
    );
    let err = v
        .validate_str(r#"{"i": 18446744073709551616}"#, Mode::Strict)
        .expect_err("beyond u64");
    assert_eq!(err.errors[0].path, "/i");
}

#[test]
fn hostile_text_gets_the_same_verdict() {
    let v = weather();
    let deep = format!(
        r#"{{"city": "x", "country": "y", "labels": {{"a": {}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let long = format!(r#"{{"city": "{}", "country": "y"}}"#, "é".repeat(200_000));
    for text in [
        r#"{"city": "a", "country": "b", "city": "a"}"#,
        r#"{"city": "a", "country": "b", "labels": {"k": "1", "k": "2"}}"#,
        r#"{"city": "a", "country": "b", "labels": {"k": "1", "\u006b": "2"}}"#,
        r#"{"\u0063ity": "a", "country": "b"}"#,
        r#"{"city": "\ud800", "country": "b"}"#,
        r#"{"city": "\ud83d\ude00", "country": "b"}"#,
        r#"{"city": "a", "country": "b"} x"#,
        r#"{"city": "a", "country": "b""#,
        r#"{"city": "a", "country": "b", "at": {"lat": 1, "lon": 2, "lat": 1}}"#,
        "",
        "null",
        "[]",
        deep.as_str(),
        long.as_str(),
    ] {
        check(&v, text);
    }
}

#[test]
fn wide_objects_in_any_key_order() {
    // 150 fields (beyond the inline field sets), every third one defaulted, every fifth one
    // required; keys sent in reverse, shuffled, with gaps.
    let mut source = String::from("/// Wide.\ntool wide {\n");
    for i in 0..150_usize {
        let field = match (i.is_multiple_of(5), i.is_multiple_of(3)) {
            (true, _) => format!("  f{i}: integer\n"),
            (false, true) => format!("  f{i}?: integer = {i}\n"),
            (false, false) => format!("  f{i}?: string\n"),
        };
        source.push_str(&field);
    }
    source.push_str("}\n");
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("the wide tool compiles: {e:?}"))
        .module;
    let v = Validator::for_tool(&module, "wide").unwrap_or_else(|e| panic!("{e}"));
    let entry = |i: usize| {
        if i.is_multiple_of(5) || i.is_multiple_of(3) {
            format!("\"f{i}\": {}", i * 2)
        } else {
            format!("\"f{i}\": \"s{i}\"")
        }
    };
    let required: Vec<usize> = (0..150_usize).filter(|&i| i.is_multiple_of(5)).collect();
    let orders: Vec<Vec<usize>> = vec![
        (0..150_usize).rev().collect(),
        (0..150_usize)
            .filter(|&i| i.is_multiple_of(2) || i.is_multiple_of(5))
            .collect(),
        (0..150_usize)
            .map(|i| (i * 7) % 150)
            .filter(|&i| i % 4 != 1 || i.is_multiple_of(5))
            .collect(),
        required.clone(),
        required.iter().rev().copied().collect(),
    ];
    for order in orders {
        let body: Vec<String> = order.iter().map(|&i| entry(i)).collect();
        let text = format!("{{{}}}", body.join(", "));
        check(&v, &text);
        assert!(v.validate_str(&text, Mode::Strict).is_ok(), "{text}");
        // Strings for integers and nulls for optional fields: lax coercions in key order.
        let lax: Vec<String> = order
            .iter()
            .map(|&i| match i.is_multiple_of(5) {
                true => format!("\"f{i}\": \"{i}\""),
                false if i.is_multiple_of(2) => format!("\"f{i}\": null"),
                false => entry(i),
            })
            .collect();
        check(&v, &format!("{{{}}}", lax.join(", ")));
    }
    let missing: Vec<String> = (1..150).map(entry).collect();
    check(&v, &format!("{{{}}}", missing.join(", ")));
}

#[test]
fn tuples_never_and_literal_arrays_agree_on_both_paths() {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid/tuples.tool"),
    )
    .unwrap_or_default();
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("tuples.tool compiles: {e:?}"))
        .module;
    let v = Validator::for_tool(&module, "shapes").unwrap_or_else(|e| panic!("{e}"));
    let texts = [
        r#"{"point": [1, 2]}"#,
        r#"{"point": [1, "2"]}"#,
        r#"{"point": [1, 2, 3]}"#,
        r#"{"point": [1]}"#,
        r#"{"point": [1, 2], "range": [1, 2, "a", "b"]}"#,
        r#"{"point": [1, 2], "range": [1, 2, "a", "a"]}"#,
        r#"{"point": [1, 2], "range": ["1"]}"#,
        r#"{"point": [1, 2], "open": ["a", 1, null, {}]}"#,
        r#"{"point": [1, 2], "open": ["a", 1, null, {}, 5]}"#,
        r#"{"point": [1, 2], "pair": [1, "a", [true, null]]}"#,
        r#"{"point": [1, 2], "pair": [1.0, "a", [true, null]]}"#,
        r#"{"point": [1, 2], "pair": [1, "a", [1, null]]}"#,
        r#"{"point": [1, 2], "flag": {"off": []}}"#,
        r#"{"point": [1, 2], "legacy": 1}"#,
        r#"{"point": [1, 2], "legacy": null}"#,
        r#"{"point": [1, 2], "many": ["a", 1, true]}"#,
        r#"{"point": [1, 2], "many": ["a"]}"#,
        r#"{"point": [1, 2], "min_inside": []}"#,
    ];
    for text in texts {
        for mode in [Mode::Strict, Mode::Lax] {
            assert_eq!(
                v.validate_str(text, mode),
                v.validate_full(text, mode),
                "{mode:?} {text}"
            );
            assert_eq!(
                v.is_valid(text, mode),
                v.validate_full(text, mode).is_ok(),
                "{text}"
            );
        }
    }
    // The verdicts themselves.
    assert!(v.is_valid(r#"{"point": [1, 2]}"#, Mode::Strict));
    assert!(!v.is_valid(r#"{"point": [1, 2, 3]}"#, Mode::Strict));
    assert!(v.is_valid(r#"{"point": [1, "2"]}"#, Mode::Lax));
    assert!(!v.is_valid(r#"{"point": [1, 2], "legacy": 1}"#, Mode::Lax));
}

#[test]
fn strict_problems_found_while_reading_come_in_the_full_runs_order() {
    let v = weather();
    // Sent in reverse, with two required fields missing, an unknown key, a map value, a union
    // and a bound broken, and `null` for an optional field that does not take it.
    let text = r#"{"zz": true, "labels": {"a": 1}, "at": {"lat": 100}, "days": 0, "state": null}"#;
    check(&v, text);
    let errors = match v.validate_str(text, Mode::Strict) {
        Err(e) => e.errors,
        Ok(_) => panic!("invalid arguments were accepted"),
    };
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    // Declaration order (`city`, `state`, `country`, `days`, `at`, `labels`), then the key
    // the tool does not declare.
    assert_eq!(
        paths,
        [
            "/city",
            "/state",
            "/country",
            "/days",
            "/at/lat",
            "/at/lon",
            "/labels/a",
            "/zz"
        ]
    );
    assert!(
        errors[1].message().contains("leave"),
        "{}",
        errors[1].message()
    );
    // Nested: an array of objects, one of them missing a field and one with an unknown key.
    let source = r#"
        /// Points.
        tool t {
          /// Points.
          points: { x: integer, y: integer }[] @max_items(3)
        }
    "#;
    let module = tooldef::compile(source)
        .unwrap_or_else(|e| panic!("the points tool compiles: {e:?}"))
        .module;
    let v = Validator::for_tool(&module, "t").unwrap_or_else(|e| panic!("{e}"));
    for text in [
        r#"{"points": [{"y": 1, "x": "a"}, {"x": 1}, {"y": 2, "x": 2, "z": 0}]}"#,
        r#"{"points": [{"y": 1}, {"x": 1}, {"x": 1, "y": 2}, {"x": true}]}"#,
    ] {
        check(&v, text);
    }
    let errors = match v.validate_str(
        r#"{"points": [{"y": 1, "x": "a"}, {"x": 1}, {"y": 2, "x": 2, "z": 0}]}"#,
        Mode::Strict,
    ) {
        Err(e) => e.errors,
        Ok(_) => panic!("invalid arguments were accepted"),
    };
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/points/0/x", "/points/1/y", "/points/2/z"]);
}

/// `is_valid` reads text without building the value, but for the items of a `@unique` array
/// (which it compares): unique arrays of objects, strings and nested arrays, repeated declared
/// and undeclared keys, maps and open objects get the full path's verdict.
#[test]
fn the_check_that_builds_nothing_agrees_where_values_are_compared() {
    let source =
        "/// A point.\ntype P {\n  /// X.\n  x: integer\n  /// Tag.\n  tag?: string\n}\n\n\
                  /// T.\ntool t {\n  /// Points.\n  points?: P[] @unique\n  /// Names.\n  \
                  names?: string[] @unique\n  /// Grid.\n  grid?: string[][] @unique\n  \
                  /// Rows, not unique.\n  rows?: P[]\n  /// Labels.\n  labels?: map<string>\n  \
                  /// Open.\n  open?: { ... }\n  ...: integer\n}\n";
    let module = tooldef::compile(source)
        .unwrap_or_else(|e| panic!("compiles: {e:?}"))
        .module;
    let v = Validator::for_tool(&module, "t").unwrap_or_else(|e| panic!("{e}"));
    let texts = [
        r#"{}"#,
        r#"{"points": [{"x": 1}, {"x": 2}]}"#,
        r#"{"points": [{"x": 1}, {"x": 1}]}"#,
        r#"{"points": [{"x": 1, "tag": "a"}, {"x": 1, "tag": "b"}]}"#,
        r#"{"points": [{"x": 1, "tag": "a"}, {"tag": "a", "x": 1}]}"#,
        r#"{"names": ["a", "b"]}"#,
        r#"{"names": ["a", "a"]}"#,
        r#"{"names": ["a", "\u0061"]}"#,
        r#"{"grid": [["a"], ["b"]]}"#,
        r#"{"grid": [["a", "b"], ["a", "b"]]}"#,
        r#"{"rows": [{"x": 1}, {"x": 1}]}"#,
        r#"{"rows": [{"x": 1}, {"x": "1"}]}"#,
        r#"{"labels": {"a": "x", "b": "y"}}"#,
        r#"{"labels": {"a": "x", "a": "y"}}"#,
        r#"{"open": {"a": 1, "a": 2}}"#,
        r#"{"extra": 1, "other": 2}"#,
        r#"{"extra": 1, "extra": 2}"#,
        r#"{"extra": "1"}"#,
        r#"{"names": ["a"], "names": ["b"]}"#,
    ];
    for text in texts {
        for mode in [Mode::Strict, Mode::Lax] {
            assert_eq!(
                v.is_valid(text, mode),
                v.validate_full(text, mode).is_ok(),
                "{mode:?} {text}"
            );
            assert_eq!(
                v.validate_str(text, mode),
                v.validate_full(text, mode),
                "{mode:?} {text}"
            );
        }
    }
    assert!(v.is_valid(r#"{"points": [{"x": 1}, {"x": 2}]}"#, Mode::Strict));
    assert!(!v.is_valid(r#"{"points": [{"x": 1}, {"x": 1}]}"#, Mode::Strict));
    assert!(v.is_valid(r#"{"rows": [{"x": 1}, {"x": 1}]}"#, Mode::Strict));
    assert!(!v.is_valid(r#"{"names": ["a", "\u0061"]}"#, Mode::Strict));
    assert!(!v.is_valid(r#"{"extra": 1, "extra": 2}"#, Mode::Strict));
}
