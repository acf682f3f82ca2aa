//! Table-driven cases for every rule of the validator, in both modes.

use serde_json::{json, Value};
use tooldef::validate::{CallOptions, ErrorCode, IntoError, Mode, OnInvalid, Outcome, Validator};

const SOURCE: &str = r#"
/// A point.
type Point { x: number, y: number }
enum Color { red green blue }
enum Level { 1 2 3 }

/// A tool with a parameter of every kind.
tool t {
  /// The one required parameter.
  req: string
  i?: integer
  r?: integer @min(1) @max(14)
  n?: number
  xn?: number @exclusive_min(0) @exclusive_max(1)
  m?: integer @multiple_of(5)
  fm?: number @multiple_of(0.1)
  b?: boolean
  s?: string
  sl?: string @min_length(2) @max_length(3)
  p?: string @pattern("^[a-z]+$")
  up?: string @pattern("b")
  f?: string @format(date)
  c?: Color
  lv?: Level
  lit?: "a" | 1 | true
  one?: 7
  arr?: integer[]
  u?: integer[] @unique
  objs?: {a: integer}[] @unique
  mi?: string[] @min_items(1) @max_items(2)
  pt?: Point
  np?: Point | null
  ns?: string | null
  u2?: string | integer
  ps?: Point | string
  mp?: map<integer>
  open?: { a: integer, ... }
  anything?: any
  ud?: {c?: integer = 1}[] @unique
  d?: integer = 5
}
"#;

fn validator() -> Validator {
    let module = tooldef::compile(SOURCE)
        .expect("the fixture compiles")
        .module;
    Validator::for_tool(&module, "t").expect("the tool exists")
}

use Expect::*;
enum Expect {
    /// Valid; the given parameters (besides `req` and the default `d`) and the number of
    /// coercions.
    Ok(Value, usize),
    /// Invalid with exactly these (path, code) pairs.
    Err(&'static [(&'static str, ErrorCode)]),
}

use ErrorCode as C;

/// (mode, extra arguments merged into {"req": "x"}, expectation)
fn table() -> Vec<(Mode, Value, Expect)> {
    use Mode::{Lax as L, Strict as S};
    vec![
        // integer
        (S, json!({"i": 42}), Ok(json!({"i": 42}), 0)),
        (S, json!({"i": 42.0}), Ok(json!({"i": 42}), 0)),
        (L, json!({"i": 42.0}), Ok(json!({"i": 42}), 0)),
        (S, json!({"i": 42.5}), Err(&[("/i", C::WrongType)])),
        (L, json!({"i": 42.5}), Err(&[("/i", C::WrongType)])),
        (S, json!({"i": "42"}), Err(&[("/i", C::WrongType)])),
        (L, json!({"i": "42"}), Ok(json!({"i": 42}), 1)),
        (L, json!({"i": " 42 "}), Ok(json!({"i": 42}), 1)),
        (L, json!({"i": "+42"}), Ok(json!({"i": 42}), 1)),
        (L, json!({"i": "-42"}), Ok(json!({"i": -42}), 1)),
        (L, json!({"i": "42.000"}), Ok(json!({"i": 42}), 1)),
        (
            L,
            json!({"i": "18446744073709551615"}),
            Ok(json!({"i": u64::MAX}), 1),
        ),
        (
            L,
            json!({"i": "18446744073709551616"}),
            Err(&[("/i", C::NotCoercible)]),
        ),
        (L, json!({"i": "4.5"}), Err(&[("/i", C::NotCoercible)])),
        (L, json!({"i": "1e3"}), Err(&[("/i", C::NotCoercible)])),
        (L, json!({"i": "0x1A"}), Err(&[("/i", C::NotCoercible)])),
        (L, json!({"i": "1_000"}), Err(&[("/i", C::NotCoercible)])),
        (L, json!({"i": "42."}), Err(&[("/i", C::NotCoercible)])),
        (L, json!({"i": ""}), Err(&[("/i", C::NotCoercible)])),
        (S, json!({"i": true}), Err(&[("/i", C::WrongType)])),
        (L, json!({"i": true}), Err(&[("/i", C::WrongType)])),
        (L, json!({"i": [1]}), Err(&[("/i", C::WrongType)])),
        // null for an optional, non-nullable field
        (S, json!({"i": null}), Err(&[("/i", C::WrongType)])),
        (L, json!({"i": null}), Ok(json!({}), 1)),
        (S, json!({"d": null}), Err(&[("/d", C::WrongType)])),
        (L, json!({"d": null}), Ok(json!({}), 1)),
        // integer range
        (S, json!({"r": 1}), Ok(json!({"r": 1}), 0)),
        (S, json!({"r": 14}), Ok(json!({"r": 14}), 0)),
        (S, json!({"r": 0}), Err(&[("/r", C::BelowMinimum)])),
        (S, json!({"r": 15}), Err(&[("/r", C::AboveMaximum)])),
        (L, json!({"r": "15"}), Err(&[("/r", C::AboveMaximum)])),
        (L, json!({"r": "14"}), Ok(json!({"r": 14}), 1)),
        // number
        (S, json!({"n": 1.5}), Ok(json!({"n": 1.5}), 0)),
        (S, json!({"n": 2}), Ok(json!({"n": 2}), 0)),
        (S, json!({"n": "1.5"}), Err(&[("/n", C::WrongType)])),
        (L, json!({"n": "1.5"}), Ok(json!({"n": 1.5}), 1)),
        (L, json!({"n": " -2.5e1 "}), Ok(json!({"n": -25.0}), 1)),
        (L, json!({"n": "12"}), Ok(json!({"n": 12}), 1)),
        (L, json!({"n": "NaN"}), Err(&[("/n", C::NotCoercible)])),
        (L, json!({"n": "Infinity"}), Err(&[("/n", C::NotCoercible)])),
        (L, json!({"n": "-inf"}), Err(&[("/n", C::NotCoercible)])),
        (L, json!({"n": "1e400"}), Err(&[("/n", C::NotCoercible)])),
        (L, json!({"n": "12abc"}), Err(&[("/n", C::NotCoercible)])),
        (L, json!({"n": false}), Err(&[("/n", C::WrongType)])),
        (S, json!({"xn": 0.5}), Ok(json!({"xn": 0.5}), 0)),
        (S, json!({"xn": 0}), Err(&[("/xn", C::BelowMinimum)])),
        (S, json!({"xn": 1}), Err(&[("/xn", C::AboveMaximum)])),
        // multipleOf, read as decimals
        (S, json!({"m": 10}), Ok(json!({"m": 10}), 0)),
        (S, json!({"m": 10.0}), Ok(json!({"m": 10}), 0)),
        (S, json!({"m": 7}), Err(&[("/m", C::NotMultiple)])),
        (S, json!({"fm": 0.3}), Ok(json!({"fm": 0.3}), 0)),
        (S, json!({"fm": 0.35}), Err(&[("/fm", C::NotMultiple)])),
        // boolean
        (S, json!({"b": true}), Ok(json!({"b": true}), 0)),
        (S, json!({"b": "true"}), Err(&[("/b", C::WrongType)])),
        (L, json!({"b": "true"}), Ok(json!({"b": true}), 1)),
        (L, json!({"b": " false "}), Ok(json!({"b": false}), 1)),
        (L, json!({"b": "True"}), Err(&[("/b", C::NotCoercible)])),
        (L, json!({"b": "yes"}), Err(&[("/b", C::NotCoercible)])),
        (S, json!({"b": 0}), Err(&[("/b", C::WrongType)])),
        (L, json!({"b": 1}), Err(&[("/b", C::WrongType)])),
        // string
        (S, json!({"s": "x"}), Ok(json!({"s": "x"}), 0)),
        (S, json!({"s": 42}), Err(&[("/s", C::WrongType)])),
        (L, json!({"s": 42}), Ok(json!({"s": "42"}), 1)),
        (L, json!({"s": 1.5}), Ok(json!({"s": "1.5"}), 1)),
        (L, json!({"s": -7}), Ok(json!({"s": "-7"}), 1)),
        (L, json!({"s": true}), Err(&[("/s", C::WrongType)])),
        (L, json!({"s": []}), Err(&[("/s", C::WrongType)])),
        (L, json!({"s": {}}), Err(&[("/s", C::WrongType)])),
        (L, json!({"s": null}), Ok(json!({}), 1)),
        // lengths count code points
        (S, json!({"sl": "ab"}), Ok(json!({"sl": "ab"}), 0)),
        (S, json!({"sl": "日本語"}), Ok(json!({"sl": "日本語"}), 0)),
        (S, json!({"sl": "😀😀"}), Ok(json!({"sl": "😀😀"}), 0)),
        (S, json!({"sl": "a"}), Err(&[("/sl", C::TooShort)])),
        (S, json!({"sl": "abcd"}), Err(&[("/sl", C::TooLong)])),
        (L, json!({"sl": 1234}), Err(&[("/sl", C::TooLong)])),
        (L, json!({"sl": 12}), Ok(json!({"sl": "12"}), 1)),
        // patterns, unanchored unless anchored
        (S, json!({"p": "abc"}), Ok(json!({"p": "abc"}), 0)),
        (S, json!({"p": "aBc"}), Err(&[("/p", C::PatternMismatch)])),
        (S, json!({"up": "abc"}), Ok(json!({"up": "abc"}), 0)),
        (S, json!({"up": "ac"}), Err(&[("/up", C::PatternMismatch)])),
        // formats are asserted, in both modes
        (
            S,
            json!({"f": "not a date"}),
            Err(&[("/f", C::FormatMismatch)]),
        ),
        (
            L,
            json!({"f": "2024-02-30"}),
            Err(&[("/f", C::FormatMismatch)]),
        ),
        (
            S,
            json!({"f": "2024-02-29"}),
            Ok(json!({"f": "2024-02-29"}), 0),
        ),
        // enums
        (S, json!({"c": "red"}), Ok(json!({"c": "red"}), 0)),
        (S, json!({"c": "Red"}), Err(&[("/c", C::NotAllowed)])),
        (L, json!({"c": "Red"}), Err(&[("/c", C::NotAllowed)])),
        (S, json!({"lv": 2}), Ok(json!({"lv": 2}), 0)),
        (S, json!({"lv": 2.0}), Ok(json!({"lv": 2}), 0)),
        (S, json!({"lv": "2"}), Err(&[("/lv", C::NotAllowed)])),
        (L, json!({"lv": "2"}), Ok(json!({"lv": 2}), 1)),
        (L, json!({"lv": " 3 "}), Ok(json!({"lv": 3}), 1)),
        (L, json!({"lv": "4"}), Err(&[("/lv", C::NotAllowed)])),
        (S, json!({"lit": "a"}), Ok(json!({"lit": "a"}), 0)),
        (S, json!({"lit": 1}), Ok(json!({"lit": 1}), 0)),
        (S, json!({"lit": true}), Ok(json!({"lit": true}), 0)),
        (S, json!({"lit": "1"}), Err(&[("/lit", C::NotAllowed)])),
        (L, json!({"lit": "1"}), Ok(json!({"lit": 1}), 1)),
        (L, json!({"lit": "true"}), Ok(json!({"lit": true}), 1)),
        (L, json!({"lit": false}), Err(&[("/lit", C::NotAllowed)])),
        // a literal
        (S, json!({"one": 7}), Ok(json!({"one": 7}), 0)),
        (S, json!({"one": 7.0}), Ok(json!({"one": 7}), 0)),
        (S, json!({"one": "7"}), Err(&[("/one", C::NotAllowed)])),
        (L, json!({"one": "7"}), Ok(json!({"one": 7}), 1)),
        (S, json!({"one": 8}), Err(&[("/one", C::NotAllowed)])),
        // arrays arrive as arrays: no JSON in strings, no wrapping
        (S, json!({"arr": [1, 2]}), Ok(json!({"arr": [1, 2]}), 0)),
        (S, json!({"arr": []}), Ok(json!({"arr": []}), 0)),
        (L, json!({"arr": "[1, 2]"}), Err(&[("/arr", C::WrongType)])),
        (L, json!({"arr": 1}), Err(&[("/arr", C::WrongType)])),
        (L, json!({"arr": ["1", 2.0]}), Ok(json!({"arr": [1, 2]}), 1)),
        (
            S,
            json!({"arr": ["1", "x", 3]}),
            Err(&[("/arr/0", C::WrongType), ("/arr/1", C::WrongType)]),
        ),
        // uniqueItems: 1 and 1.0 are equal, objects deeply
        (S, json!({"u": [1, 2]}), Ok(json!({"u": [1, 2]}), 0)),
        (S, json!({"u": [1, 1.0]}), Err(&[("/u", C::DuplicateItems)])),
        (L, json!({"u": ["1", 1]}), Err(&[("/u", C::DuplicateItems)])),
        (
            S,
            json!({"objs": [{"a": 1}, {"a": 1.0}]}),
            Err(&[("/objs", C::DuplicateItems)]),
        ),
        (
            S,
            json!({"objs": [{"a": 1}, {"a": 2}]}),
            Ok(json!({"objs": [{"a": 1}, {"a": 2}]}), 0),
        ),
        // defaults are annotations: items that differ only in a defaulted field are distinct,
        // and stay as sent when filling the default would make them equal
        (
            S,
            json!({"ud": [{"c": 1}, {}]}),
            Ok(json!({"ud": [{"c": 1}, {}]}), 0),
        ),
        (
            S,
            json!({"ud": [{}, {"c": 2}]}),
            Ok(json!({"ud": [{"c": 1}, {"c": 2}]}), 0),
        ),
        (
            S,
            json!({"ud": [{"c": 1}, {"c": 1.0}]}),
            Err(&[("/ud", C::DuplicateItems)]),
        ),
        (
            L,
            json!({"ud": [{"c": "1"}, {}]}),
            Ok(json!({"ud": [{"c": 1}, {}]}), 1),
        ),
        (
            L,
            json!({"ud": [{"c": "1"}, {"c": null}]}),
            Ok(json!({"ud": [{"c": 1}, {}]}), 2),
        ),
        (
            L,
            json!({"ud": [{"c": "1"}, {"c": 1}]}),
            Err(&[("/ud", C::DuplicateItems)]),
        ),
        // item counts
        (S, json!({"mi": []}), Err(&[("/mi", C::TooFewItems)])),
        (
            S,
            json!({"mi": ["a", "b", "c"]}),
            Err(&[("/mi", C::TooManyItems)]),
        ),
        // objects
        (
            S,
            json!({"pt": {"x": 1, "y": 2}}),
            Ok(json!({"pt": {"x": 1, "y": 2}}), 0),
        ),
        (
            S,
            json!({"pt": {"y": 2, "x": 1}}),
            Ok(json!({"pt": {"x": 1, "y": 2}}), 0),
        ),
        (
            S,
            json!({"pt": {"x": 1}}),
            Err(&[("/pt/y", C::MissingField)]),
        ),
        (
            S,
            json!({"pt": {"x": 1, "y": 2, "z": 3}}),
            Err(&[("/pt/z", C::UnknownKey)]),
        ),
        (
            L,
            json!({"pt": "{\"x\": 1, \"y\": 2}"}),
            Err(&[("/pt", C::WrongType)]),
        ),
        (
            L,
            json!({"pt": {"x": "1", "y": 2}}),
            Ok(json!({"pt": {"x": 1, "y": 2}}), 1),
        ),
        // nullable types keep null in both modes
        (S, json!({"np": null}), Ok(json!({"np": null}), 0)),
        (L, json!({"np": null}), Ok(json!({"np": null}), 0)),
        (S, json!({"ns": null}), Ok(json!({"ns": null}), 0)),
        (
            S,
            json!({"np": {"x": 1}}),
            Err(&[("/np/y", C::MissingField)]),
        ),
        // unions: lax prefers a member the value fits as it is
        (S, json!({"u2": "a"}), Ok(json!({"u2": "a"}), 0)),
        (S, json!({"u2": 5}), Ok(json!({"u2": 5}), 0)),
        (L, json!({"u2": "5"}), Ok(json!({"u2": "5"}), 0)),
        (S, json!({"u2": true}), Err(&[("/u2", C::NoMatch)])),
        (L, json!({"u2": true}), Err(&[("/u2", C::NoMatch)])),
        // maps
        (S, json!({"mp": {"a": 1}}), Ok(json!({"mp": {"a": 1}}), 0)),
        (
            S,
            json!({"mp": {"a": "x"}}),
            Err(&[("/mp/a", C::WrongType)]),
        ),
        (L, json!({"mp": {"a": "2"}}), Ok(json!({"mp": {"a": 2}}), 1)),
        // open objects pass other keys through
        (
            S,
            json!({"open": {"a": 1, "zz": [true]}}),
            Ok(json!({"open": {"a": 1, "zz": [true]}}), 0),
        ),
        (
            S,
            json!({"open": {"zz": 1}}),
            Err(&[("/open/a", C::MissingField)]),
        ),
        // any
        (
            S,
            json!({"anything": [1, {"x": null}]}),
            Ok(json!({"anything": [1, {"x": null}]}), 0),
        ),
        (
            S,
            json!({"anything": null}),
            Ok(json!({"anything": null}), 0),
        ),
        // unknown keys, in both modes
        (S, json!({"cty": 1}), Err(&[("/cty", C::UnknownKey)])),
        (L, json!({"cty": 1}), Err(&[("/cty", C::UnknownKey)])),
        // every problem at once
        (
            S,
            json!({"i": "x", "r": 0, "b": 1, "zz": 1, "pt": {"x": "1"}}),
            Err(&[
                ("/i", C::WrongType),
                ("/r", C::BelowMinimum),
                ("/b", C::WrongType),
                ("/pt/x", C::WrongType),
                ("/pt/y", C::MissingField),
                ("/zz", C::UnknownKey),
            ]),
        ),
    ]
}

fn with_req(extra: &Value) -> Value {
    let mut args = json!({"req": "x"});
    if let (Value::Object(a), Value::Object(e)) = (&mut args, extra) {
        for (k, v) in e {
            a.insert(k.clone(), v.clone());
        }
    }
    args
}

#[test]
fn every_rule_in_both_modes() {
    let v = validator();
    let mut failures = Vec::new();
    for (i, (mode, extra, expect)) in table().into_iter().enumerate() {
        let args = with_req(&extra);
        let result = v.validate_value(&args, mode);
        // The message for the call, written before any error's own message was asked for.
        let fresh = result.as_ref().err().map(|e| e.clone().message());
        // The text path must agree with the value path.
        let text_result = v.validate_str(&args.to_string(), mode);
        if result != text_result {
            failures.push(format!("case {i} {extra}: text and value disagree"));
        }
        // The fast check must agree with the full run.
        if v.is_valid(&args, mode) != result.is_ok() {
            failures.push(format!("case {i} {extra}: is_valid disagrees"));
        }
        match (expect, result) {
            (Ok(want, n), std::result::Result::Ok(got)) => {
                let mut want = with_req(&want);
                if want.get("d").is_none() {
                    want["d"] = json!(5);
                }
                if *got.arguments != want || got.coercions.len() != n {
                    failures.push(format!(
                        "case {i} {mode:?} {extra}: got {} with {} coercions, want {want} with {n}",
                        got.arguments,
                        got.coercions.len()
                    ));
                }
            }
            (Err(want), std::result::Result::Err(got)) => {
                let got_pairs: Vec<(String, ErrorCode)> = got
                    .errors
                    .iter()
                    .map(|e| (e.path.clone(), e.code))
                    .collect();
                let want_pairs: Vec<(String, ErrorCode)> =
                    want.iter().map(|(p, c)| (p.to_string(), *c)).collect();
                if got_pairs != want_pairs {
                    failures.push(format!(
                        "case {i} {mode:?} {extra}: errors {got_pairs:?}, want {want_pairs:?}"
                    ));
                }
                // The same words whether the errors' messages were written first or not.
                let fresh = fresh.unwrap_or_default();
                let each: Vec<String> = got
                    .errors
                    .iter()
                    .map(|e| e.message().into_owned())
                    .collect();
                if fresh != got.message()
                    || each.iter().any(|m| !fresh.contains(&format!(" {m}\n")))
                {
                    failures.push(format!(
                        "case {i} {mode:?} {extra}: call message {fresh:?} against {each:?}"
                    ));
                }
            }
            (Ok(..), std::result::Result::Err(e)) => failures.push(format!(
                "case {i} {mode:?} {extra}: rejected: {}",
                e.message()
            )),
            (Err(_), std::result::Result::Ok(v)) => failures.push(format!(
                "case {i} {mode:?} {extra}: accepted as {}",
                v.arguments
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn strict_output_order_and_defaults() {
    let v = validator();
    let got = v
        .validate_str(r#"{"b": true, "req": "x", "i": 1.0}"#, Mode::Strict)
        .expect("valid");
    let keys: Vec<&String> = got
        .arguments
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["req", "i", "b", "d"]);
    assert_eq!(got.arguments["i"], json!(1));
    assert!(got.arguments["i"].is_i64());
    assert!(got.coercions.is_empty());
}

#[test]
fn coercions_are_recorded_with_path_from_and_to() {
    let v = validator();
    let got = v
        .validate_str(
            r#"{"req": 5, "pt": {"x": "1.5", "y": 2}, "d": null, "arr": [1, "2"]}"#,
            Mode::Lax,
        )
        .expect("valid");
    let seen: Vec<(String, &str, Value, Option<Value>)> = got
        .coercions
        .iter()
        .map(|c| {
            (
                c.path.clone(),
                c.rule.as_str(),
                c.from.clone(),
                c.to.clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (
                "/req".to_string(),
                "string-from-number",
                json!(5),
                Some(json!("5"))
            ),
            (
                "/arr/1".to_string(),
                "integer-from-string",
                json!("2"),
                Some(json!(2))
            ),
            (
                "/pt/x".to_string(),
                "number-from-string",
                json!("1.5"),
                Some(json!(1.5))
            ),
            (
                "/d".to_string(),
                "null-as-absent",
                json!(null),
                Some(json!(5))
            ),
        ]
    );
}

#[test]
fn argument_text_problems() {
    let v = validator();
    let cases: &[(&str, ErrorCode, &str)] = &[
        ("{", C::InvalidJson, "line 1, column 1"),
        (
            "{\n  \"req\": \"x\",\n  oops\n}",
            C::InvalidJson,
            "line 3, column 3",
        ),
        ("", C::InvalidJson, "line 1"),
        ("{} {}", C::InvalidJson, "trailing characters"),
        (
            "\"str\"",
            C::WrongType,
            "Arguments must be an object, got string.",
        ),
        (
            "[1]",
            C::WrongType,
            "Arguments must be an object, got array.",
        ),
        // JSON text inside a string: the hint, then the sentence's end (it was ".;").
        (
            r#""{\"req\": \"x\"}""#,
            C::WrongType,
            "Arguments must be an object, got string; send the object itself, not JSON text \
             inside a string.",
        ),
        (
            "null",
            C::WrongType,
            "Arguments must be an object, got null.",
        ),
        (
            "42",
            C::WrongType,
            "Arguments must be an object, got integer.",
        ),
        (
            r#"{"req": "a", "req": "b"}"#,
            C::DuplicateKey,
            "appears more than once",
        ),
        (
            r#"{"req": "\ud800"}"#,
            C::InvalidJson,
            "`\\ud800` at line 1, column 10 is half of a UTF-16 surrogate pair",
        ),
        ("{\"req\": \"日本\", \"i\": ?}", C::InvalidJson, "column 20"),
    ];
    for (text, code, needle) in cases {
        let err = v.validate_str(text, Mode::Strict).expect_err(text);
        assert_eq!(err.errors[0].code, *code, "{text}: {:?}", err.errors);
        assert!(
            err.errors[0].message().contains(needle),
            "{text}: {}",
            err.errors[0].message()
        );
        assert!(err.message().contains(needle), "{text}: {}", err.message());
    }
    let err = v
        .validate_str(r#"{"req": "a", "pt": {"x": 1, "x": 2, "y": 3}}"#, Mode::Lax)
        .expect_err("duplicate");
    assert_eq!(err.errors.len(), 1);
    assert_eq!(err.errors[0].path, "/pt/x");
    assert_eq!(err.errors[0].code, C::DuplicateKey);
    // A duplicate key after the first problem, in values read as sent (an `any` value that
    // holds an array of objects), is still found, at its full path, in both modes.
    for (mode, code) in [(Mode::Strict, C::WrongType), (Mode::Lax, C::NotCoercible)] {
        let err = v
            .validate_str(
                r#"{"req": "x", "i": "seven", "arr": [1], "anything": [{"k": {"a": 1, "a": 2}}]}"#,
                mode,
            )
            .expect_err("a wrong type and a duplicate");
        let found: Vec<(&str, ErrorCode)> = err
            .errors
            .iter()
            .map(|e| (e.path.as_str(), e.code))
            .collect();
        assert_eq!(
            found,
            [("/anything/0/k/a", C::DuplicateKey), ("/i", code)],
            "{mode:?}"
        );
    }
    // Duplicates and other problems are reported together.
    let err = v
        .validate_str(r#"{"i": 1, "i": 2, "zz": 0}"#, Mode::Strict)
        .expect_err("three problems");
    let codes: Vec<ErrorCode> = err.errors.iter().map(|e| e.code).collect();
    assert_eq!(codes, [C::DuplicateKey, C::MissingField, C::UnknownKey]);
    assert_eq!(err.errors[0].position, None);
    let err = v.validate_str("{", Mode::Strict).expect_err("not JSON");
    let pos = err.errors[0].position.expect("a position");
    assert_eq!((pos.line, pos.column), (1, 1));
}

#[test]
fn messages_are_actionable() {
    let v = validator();
    let err = v
        .validate_str(
            r#"{"reqq": "x", "c": "blu", "i": "42", "s": null}"#,
            Mode::Strict,
        )
        .expect_err("invalid");
    let m = &err.message();
    assert!(
        m.starts_with("The arguments for `t` are invalid (5 problems)."),
        "{m}"
    );
    assert!(
        m.contains(
            "missing required parameter `req` of type `string`: The one required parameter."
        ),
        "{m}"
    );
    assert!(
        m.contains("`i`: must be an integer, got string \"42\"; write the number without quotes"),
        "{m}"
    );
    assert!(m.contains("`c`: must be one of \"red\", \"green\", \"blue\", got string \"blu\"; did you mean \"blue\"?"), "{m}");
    assert!(m.contains("omit the key instead of sending null"), "{m}");
    assert!(
        m.contains("unknown parameter \"reqq\"; did you mean `req`?"),
        "{m}"
    );
    assert!(
        m.contains("\nSignature: t(req: string, i?: integer, r?: integer 1..14, "),
        "{m}"
    );
    assert!(m.contains("pt?: Point, np?: Point | null"), "{m}");
    assert!(m.ends_with("where Point = {x: number, y: number}"), "{m}");
    // Each error carries what was expected and what was got, shortened.
    let long = format!(r#"{{"req": "x", "sl": "{}"}}"#, "a".repeat(500));
    let err = v.validate_str(&long, Mode::Strict).expect_err("too long");
    assert_eq!(err.errors[0].expected(), "string (2..3 characters)");
    assert!(
        err.errors[0].got().chars().count() < 100,
        "{}",
        err.errors[0].got()
    );
    assert!(
        err.errors[0].got().contains("(500 characters)"),
        "{}",
        err.errors[0].got()
    );
    // An unknown key is named as it was sent, whatever its path escapes.
    let err = v
        .validate_str(r#"{"req": "x", "a/b~c": 1}"#, Mode::Strict)
        .expect_err("unknown key");
    assert_eq!(err.errors[0].path, "/a~1b~0c");
    assert!(
        err.errors[0]
            .message()
            .starts_with("unknown parameter \"a/b~c\""),
        "{}",
        err.errors[0].message()
    );
    // Nested paths are readable.
    let err = v
        .validate_str(r#"{"req": "x", "objs": [{"a": "z"}]}"#, Mode::Strict)
        .expect_err("nested");
    assert!(
        err.message().contains("`objs[0].a`: must be an integer"),
        "{}",
        err.message()
    );
}

#[test]
fn the_issue_example_signature() {
    let module = tooldef::compile(
        r#"
/// Return the current weather for a city.
tool get_weather {
  city: string
  days?: integer @min(1) @max(14) = 1
  unit?: "celsius" | "fahrenheit"
}"#,
    )
    .expect("compiles")
    .module;
    let v = Validator::for_tool(&module, "get_weather").expect("exists");
    assert_eq!(
        v.signature(),
        r#"get_weather(city: string, days?: integer 1..14 = 1, unit?: "celsius" | "fahrenheit")"#
    );
}

#[test]
fn policies_mode_and_raise() {
    let module = tooldef::compile(
        r#"
/// Lax by default.
@lax
tool lenient { n: integer }
/// Strict by default.
@strict
tool exact { n: integer }
/// Says nothing.
tool plain { n: integer }
"#,
    )
    .expect("compiles")
    .module;
    let lenient = Validator::for_tool(&module, "lenient").expect("exists");
    let exact = Validator::for_tool(&module, "exact").expect("exists");
    let plain = Validator::for_tool(&module, "plain").expect("exists");
    assert_eq!(lenient.default_mode(), Mode::Lax);
    assert_eq!(exact.default_mode(), Mode::Strict);
    assert_eq!(plain.default_mode(), Mode::Strict);
    let args = r#"{"n": "3"}"#;
    let reply = CallOptions::default();
    let raise = CallOptions {
        mode: None,
        on_invalid: Some(OnInvalid::Raise),
    };
    assert!(matches!(
        lenient.call(args, reply),
        std::result::Result::Ok(Outcome::Valid(_))
    ));
    match exact.call(args, reply) {
        std::result::Result::Ok(Outcome::Reply(m)) => {
            assert!(m.contains("write the number without quotes"), "{m}")
        }
        other => panic!("expected a reply, got {other:?}"),
    }
    let err = exact.call(args, raise).expect_err("raises");
    assert_eq!(err.errors[0].code, C::WrongType);
    assert_eq!(err.mode, Mode::Strict);
    // Per-call override, both ways.
    let lax_call = CallOptions {
        mode: Some(Mode::Lax),
        on_invalid: Some(OnInvalid::Raise),
    };
    assert!(exact.call(args, lax_call).is_ok());
    let strict_call = CallOptions {
        mode: Some(Mode::Strict),
        on_invalid: Some(OnInvalid::Raise),
    };
    assert!(lenient.call(args, strict_call).is_err());
    assert!(plain.clone_mode_check());
}

trait CloneModeCheck {
    fn clone_mode_check(self) -> bool;
}
impl CloneModeCheck for Validator {
    fn clone_mode_check(self) -> bool {
        self.with_default_mode(Mode::Lax)
            .validate_into::<serde_json::Value>(r#"{"n": "3"}"#)
            .is_ok()
    }
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Weather {
    city: String,
    days: u8,
    unit: Option<String>,
}

#[test]
fn validate_into_a_typed_value() {
    let module = tooldef::compile(
        r#"
/// Weather.
@lax
tool w { city: string, days?: integer @min(1) @max(14) = 1, unit?: "c" | "f" }
"#,
    )
    .expect("compiles")
    .module;
    let v = Validator::for_tool(&module, "w").expect("exists");
    let w: Weather = v
        .validate_into(r#"{"city": "Oslo", "days": "3.0"}"#)
        .expect("valid");
    assert_eq!(
        w,
        Weather {
            city: "Oslo".into(),
            days: 3,
            unit: None
        }
    );
    let w: Weather = v
        .validate_into(r#"{"city": "Oslo", "days": 2.0}"#)
        .expect("1.0 is an integer");
    assert_eq!(w.days, 2);
    match v.validate_into::<Weather>(r#"{"days": 0}"#) {
        std::result::Result::Err(IntoError::Invalid(e)) => assert_eq!(e.errors.len(), 2),
        other => panic!("expected invalid, got {other:?}"),
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Wrong {
        city: u32,
    }
    assert!(matches!(
        v.validate_into::<Wrong>(r#"{"city": "Oslo"}"#),
        std::result::Result::Err(IntoError::Deserialize(_))
    ));
}

#[test]
fn unknown_tool_suggests() {
    let module = tooldef::compile("/// T.\ntool get_weather { a: string }")
        .expect("compiles")
        .module;
    let err = Validator::for_tool(&module, "get_wether").expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "no tool named `get_wether`; did you mean `get_weather`?"
    );
}

#[test]
fn validator_is_shared_across_threads() {
    let v = std::sync::Arc::new(validator());
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let v = v.clone();
            std::thread::spawn(move || {
                v.validate_value(&json!({"req": "x", "i": i}), Mode::Strict)
                    .is_ok()
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap_or(false));
    }
}

#[test]
fn first_violation_speaks_to_the_author() {
    let module = tooldef::compile(SOURCE).expect("compiles").module;
    let tool = module.tool("t").expect("exists");
    let field = |name: &str| {
        tool.params
            .field(name)
            .map(|f| f.ty.clone())
            .expect("field")
    };
    let check =
        |name: &str, v: Value| tooldef::validate::first_violation(&module, &field(name), &v);
    assert_eq!(
        check("i", json!("1")),
        Some("expected an integer, got string \"1\"".into())
    );
    assert_eq!(
        check("r", json!(15)),
        Some("expected at most 14, got 15".into())
    );
    assert_eq!(
        check("xn", json!(0)),
        Some("expected more than 0, got 0".into())
    );
    assert_eq!(
        check("c", json!("x")),
        Some("expected one of \"red\", \"green\", \"blue\", got string \"x\"".into())
    );
    assert_eq!(
        check("u", json!([1, 2, 1])),
        Some("items must be unique, but 1 repeats".into())
    );
    assert_eq!(
        check("pt", json!({"x": 1})),
        Some("missing required field `y`".into())
    );
    assert_eq!(
        check("pt", json!({"x": 1, "y": 2, "z": 0})),
        Some("unknown field `z`".into())
    );
    assert_eq!(
        check("pt", json!({"x": 1, "y": 2, "z/~": 0})),
        Some("unknown field `z/~`".into())
    );
    assert_eq!(
        check("pt", json!({"x": "a", "y": 2})),
        Some("at /x: expected a number, got string \"a\"".into())
    );
    assert_eq!(
        check("p", json!("A")),
        Some("expected a string matching /^[a-z]+$/, got \"A\"".into())
    );
    assert_eq!(
        check("sl", json!("a")),
        Some("expected at least 2 characters, got 1".into())
    );
    assert_eq!(
        check("mi", json!([])),
        Some("expected at least 1 items, got 0".into())
    );
    assert_eq!(
        check("one", json!(8)),
        Some("expected 7, got number 8".into())
    );
    // A union no member of which fits says why its first member does not.
    assert_eq!(
        check("u2", json!(true)),
        Some("matches no member of the union (expected a string, got boolean true)".into())
    );
    // The author reads the problems the model is shown, in the same order: here those of the
    // one member of the value's kind, and the items' problems before the array's.
    assert_eq!(
        check("ps", json!({"x": "a", "y": 1})),
        Some("at /x: expected a number, got string \"a\"".into())
    );
    assert_eq!(
        check("u", json!([1, "a", 1])),
        Some("at /1: expected an integer, got string \"a\"".into())
    );
    assert_eq!(check("r", json!(3)), None);
}

#[test]
fn cycles_that_consume_nothing_mean_their_least_fixed_point() {
    // The checker rejects `type A = A | string`; a model built by hand may still hold it, and the
    // validator then reads it as its least fixed point: only a string.
    let err =
        tooldef::compile("type A = A | string\n/// T.\ntool t { a: A }").expect_err("rejected");
    assert!(
        err.errors()
            .all(|d| d.code == tooldef::Code::InfiniteRecursion),
        "{err:?}"
    );

    use tooldef::model::*;
    let named = |name: &str, ty: Ty| NamedType {
        name: name.into(),
        kind: NamedKind::Alias,
        description: None,
        ty,
        recursive: true,
        deprecated: false,
        span: tooldef::Span::default(),
    };
    let field = |name: &str, required: bool, ty: Ty| Field {
        name: name.into(),
        description: None,
        required,
        ty,
        default: None,
        examples: Vec::new(),
        deprecated: false,
        span: tooldef::Span::default(),
    };
    let mut module = tooldef::compile("/// T.\ntool t {}")
        .expect("compiles")
        .module;
    module.types = vec![
        named(
            "A",
            Ty::AnyOf(vec![Ty::Ref(TypeId(0)), Ty::String(StringRules::default())]),
        ),
        named("N", Ty::Nullable(Box::new(Ty::Ref(TypeId(1))))),
    ];
    module.tools[0].params.fields = vec![
        field("a", true, Ty::Ref(TypeId(0))),
        field("n", false, Ty::Ref(TypeId(1))),
    ];
    let v = Validator::for_tool(&module, "t").expect("exists");
    assert!(v.validate_value(&json!({"a": "x"}), Mode::Strict).is_ok());
    assert!(v.validate_value(&json!({"a": 1}), Mode::Strict).is_err());
    assert!(v
        .validate_value(&json!({"a": "x", "n": null}), Mode::Strict)
        .is_ok());
    assert!(v
        .validate_value(&json!({"a": "x", "n": 0}), Mode::Strict)
        .is_err());
}

#[test]
fn recursive_types_agree_with_the_emitted_schema() {
    let module = tooldef::compile(
        r#"
/// A tree.
type Tree { value: integer @min(0), children?: Tree[] @max_items(3) }
/// Walks a tree.
tool walk { tree: Tree, other?: Tree | null }
"#,
    )
    .expect("compiles")
    .module;
    let tool = module.tool("walk").expect("exists");
    let v = Validator::new(&module, tool).expect("compiles");
    let schema = tooldef::emit::parameters(&module, tool);
    let reference = jsonschema::validator_for(&schema).expect("a valid schema");
    let leaf = |n: i64| json!({"value": n});
    let cases = [
        json!({"tree": leaf(1)}),
        json!({"tree": {"value": 1, "children": [leaf(2), {"value": 3, "children": [leaf(4)]}]}}),
        json!({"tree": {"value": 1, "children": [leaf(2), {"value": 3, "children": [leaf(-4)]}]}}),
        json!({"tree": {"value": 1, "children": [leaf(1), leaf(1), leaf(1), leaf(1)]}}),
        json!({"tree": leaf(1), "other": null}),
        json!({"tree": leaf(1), "other": {"value": "x"}}),
        json!({"tree": {"value": 1, "children": [{"value": 2, "extra": true}]}}),
    ];
    for args in cases {
        let ours = v.validate_value(&args, Mode::Strict);
        assert_eq!(ours.is_ok(), reference.is_valid(&args), "{args}: {ours:?}");
    }
    let err = v
        .validate_value(
            &json!({"tree": {"value": 1, "children": [leaf(2), {"value": 3, "children": [leaf(-4)]}]}}),
            Mode::Strict,
        )
        .expect_err("invalid");
    assert_eq!(err.errors[0].path, "/tree/children/1/children/0/value");
    assert!(
        err.message()
            .contains("`tree.children[1].children[0].value`: must be at least 0, got -4"),
        "{}",
        err.message()
    );
    assert!(
        err.message()
            .contains("where Tree = {value: integer >= 0, children?: Tree[] (at most 3 items)}"),
        "{}",
        err.message()
    );
}

/// The fast check refuses an object by its count of keys alone where the count decides (fewer
/// keys than required fields, or a closed object sent more keys than it has fields), and only
/// there: every verdict agrees with the full run, which names the key or the field.
#[test]
fn the_count_of_keys_decides_only_where_it_can() {
    let source = r#"
/// Counts.
tool t {
  a: string
  b?: integer
  inner?: { x: integer, y?: integer }
  open?: { x: integer, ... }
  more?: { x: integer, ...: boolean }
}
"#;
    let module = tooldef::compile(source).expect("compiles").module;
    let v = Validator::for_tool(&module, "t").expect("the tool exists");
    let cases: [(Value, &[(&str, ErrorCode)]); 10] = [
        // Every field given, and one more: a closed object holds a key it does not declare.
        (
            json!({"a": "s", "b": 1, "inner": {"x": 1}, "open": {"x": 1}, "more": {"x": 1}, "z": 0}),
            &[("/z", C::UnknownKey)],
        ),
        (
            json!({"a": "s", "inner": {"x": 1, "y": 2, "z": 3}}),
            &[("/inner/z", C::UnknownKey)],
        ),
        // As many keys as fields, one of them undeclared: the count cannot tell.
        (
            json!({"a": "s", "inner": {"x": 1, "z": 3}}),
            &[("/inner/z", C::UnknownKey)],
        ),
        // Fewer keys than required fields.
        (json!({"inner": {"x": 1}}), &[("/a", C::MissingField)]),
        (
            json!({"a": "s", "inner": {}}),
            &[("/inner/x", C::MissingField)],
        ),
        // Enough keys, one required field missing all the same.
        (
            json!({"b": 1, "inner": {"x": 1}}),
            &[("/a", C::MissingField)],
        ),
        // Open objects take any number of keys.
        (json!({"a": "s", "open": {"x": 1, "y": [], "z": {}}}), &[]),
        (
            json!({"a": "s", "more": {"x": 1, "y": true, "z": false}}),
            &[],
        ),
        (
            json!({"a": "s", "more": {"x": 1, "y": 1}}),
            &[("/more/y", C::WrongType)],
        ),
        // Exactly every field: valid.
        (
            json!({"a": "s", "b": 1, "inner": {"x": 1, "y": 2}, "open": {"x": 1}, "more": {"x": 1}}),
            &[],
        ),
    ];
    for (args, want) in cases {
        let full = v.validate_value(&args, Mode::Strict);
        assert_eq!(v.is_valid(&args, Mode::Strict), want.is_empty(), "{args}");
        assert_eq!(full.is_ok(), want.is_empty(), "{args}");
        if let std::result::Result::Err(e) = full {
            let got: Vec<(&str, ErrorCode)> =
                e.errors.iter().map(|e| (e.path.as_str(), e.code)).collect();
            assert_eq!(got, want, "{args}");
        }
    }
}
