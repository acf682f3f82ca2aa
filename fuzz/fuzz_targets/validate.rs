//! Fixed tools (patterns with `\d` and `\w`, non-ASCII field names, unions, maps, tuples, bounds,
//! recursion, an open object) and arbitrary argument bytes: the first byte picks the tool, the
//! rest is the argument text.
//!
//! Invariants, in both modes:
//! - `validate_str` never panics, and `is_valid` on the text gives its verdict;
//! - when the text is JSON that `serde_json` reads (so within its nesting limit of 128 and with
//!   every number finite) and no object in it repeats a key, `validate_value` on the parsed value
//!   gives the same verdict, the same normalized arguments and coercions when valid, and the
//!   same error codes at the same paths when not; `is_valid` on the value agrees;
//! - in lax mode, the output passes strict mode and validating it again changes nothing.
//!
//! In strict mode the verdict equals the `jsonschema` crate's (0.60, draft 2020-12, `format`
//! asserted) on the emitted `json-schema` parameters, for every text compared above. The
//! differences allowed, all outside that set:
//! - text that `serde_json` rejects (a repeated key is an error for the validator and "last one
//!   wins" for `serde_json`; numbers beyond `f64`; nesting past 128) has no reference verdict;
//! - an `integer` field refuses an integral double beyond ±2^53 (`1e20`, or
//!   `99999999999999999999` as read), which may be a rounded reading of the text; the
//!   `jsonschema` crate calls it an integer. Values holding one have no reference verdict;
//! - where a string is shaped like an RFC 3339 date or time, the `jsonschema` crate's format
//!   verdict is not compared (it reads any byte in a digit's place as a digit); the verdicts
//!   with `format` annotated on both sides still are;
//! - the patterns avoid `\b` and `.`, which the `jsonschema` crate leaves to the regex crate's
//!   Unicode reading (tests/patterns.rs pins that difference).
#![no_main]

use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use tooldef::validate::{Mode, Validator};

const SOURCE: &str = r#"
/// A tag: word characters only.
type Tag = string @pattern("^\\w+$") @max_length(8)

/// A tree.
type Tree {
  value: integer @min(0)
  children?: Tree[] @max_items(3)
}

/// A level.
enum Level { low medium 3 }

/// The first of a chain.
type A1 = A2
/// The second.
type A2 = A3
/// The last.
type A3 = integer @min(-5) @max(5)

/// Scalars and their bounds.
tool scalars {
  /// Three digits, a dash, a word.
  code: string @pattern("\\d{3}-\\w+") @min_length(4) @max_length(12)
  "prénom"?: string @min_length(1)
  "日本"?: integer @exclusive_min(0) @multiple_of(3)
  ratio?: number @min(0.5) @exclusive_max(2.5)
  when?: string @format(date-time)
  level?: Level = "low"
  chained?: A1
  flag?: boolean = false
}

/// Unions, maps, tuples and recursion.
@lax
tool shapes {
  either: string | integer | null
  tags?: map<Tag>
  point?: [number, number?, ...: string] @unique
  list?: (Tag | integer @min(1))[] @min_items(1) @max_items(4) @unique
  tree?: Tree
  open?: { known: boolean ... }
  typed_open?: { id: integer, ...: string @max_length(3) }
  anything?: any
  literal?: "a" | 1 | true | [1, "x"] | { on: null }
  matrix?: number[][] @max_items(2)
}

/// No parameters at all.
tool empty {}
"#;

struct Tool {
    validator: Validator,
    reference: jsonschema::Validator,
    /// The same tool with `format` an annotation, on both sides.
    annotating: Validator,
    reference_annotating: jsonschema::Validator,
}

fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let module = tooldef::compile(SOURCE)
            .expect("the fixed tools compile")
            .module;
        module
            .tools
            .iter()
            .map(|tool| {
                let schema = tooldef::emit::parameters(&module, tool);
                let reference = |formats: bool| {
                    jsonschema::options()
                        .with_draft(jsonschema::Draft::Draft202012)
                        .should_validate_formats(formats)
                        .build(&schema)
                        .expect("the emitted schema compiles")
                };
                Tool {
                    validator: Validator::new(&module, tool).expect("validator"),
                    reference: reference(true),
                    annotating: Validator::new(&module, tool)
                        .expect("validator")
                        .without_formats(),
                    reference_annotating: reference(false),
                }
            })
            .collect()
    })
}

/// Any JSON value, failing on an object that repeats a key.
struct Unique;

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Unique;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_str<E>(self, _: &str) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_unit<E>(self) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Unique, A::Error> {
        while seq.next_element::<Unique>()?.is_some() {}
        Ok(Unique)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Unique, A::Error> {
        let mut seen = HashSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !seen.insert(k) {
                return Err(serde::de::Error::custom("repeated key"));
            }
            map.next_value::<Unique>()?;
        }
        Ok(Unique)
    }
}

/// Whether the value holds an integral double beyond ±2^53, which an `integer` field refuses
/// (reading may have rounded it) and the `jsonschema` crate calls an integer.
fn has_inexact_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_f64()
                && n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() > 9_007_199_254_740_992.0)
        }
        Value::Array(items) => items.iter().any(has_inexact_integer),
        Value::Object(m) => m.values().any(has_inexact_integer),
        _ => false,
    }
}

/// Whether the value holds a string shaped like an RFC 3339 date or time (the separators the
/// `jsonschema` crate looks for: `-` at 4 and 7, or `:` at 2 and 5). That crate (0.60) reads any
/// byte in a digit's place as a digit (`2024-01-01T00:00:0.Z` is a date-time to it), so its
/// format verdict on such strings is not a reference; the JSON-Schema-Test-Suite and
/// `tests/formats.rs` cover them instead.
fn has_misread_digits(value: &Value) -> bool {
    match value {
        Value::String(s) => {
            let b = s.as_bytes();
            (b.get(4) == Some(&b'-') && b.get(7) == Some(&b'-'))
                || (b.get(2) == Some(&b':') && b.get(5) == Some(&b':'))
        }
        Value::Array(items) => items.iter().any(has_misread_digits),
        Value::Object(m) => m.values().any(has_misread_digits),
        _ => false,
    }
}

fn codes(e: &tooldef::validate::Invalid) -> Vec<(String, &'static str)> {
    e.errors
        .iter()
        .map(|e| (e.path.clone(), e.code.as_str()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let tools = tools();
    let tool = &tools[pick as usize % tools.len()];
    let v = &tool.validator;
    let value = serde_json::from_str::<Unique>(text)
        .ok()
        .and_then(|_| serde_json::from_str::<Value>(text).ok());
    for mode in [Mode::Strict, Mode::Lax] {
        let by_text = v.validate_str(text, mode);
        assert_eq!(
            v.is_valid(text, mode),
            by_text.is_ok(),
            "{mode:?}: is_valid on the text disagrees with validate_str"
        );
        if let Ok(ok) = &by_text {
            if mode == Mode::Lax {
                let strict = v.validate_value(&ok.arguments, Mode::Strict);
                assert!(
                    strict.is_ok(),
                    "lax output fails strict mode: {}",
                    ok.arguments
                );
                let again = v
                    .validate_value(&ok.arguments, Mode::Lax)
                    .expect("lax again");
                assert_eq!(*again.arguments, *ok.arguments, "lax is not idempotent");
                assert!(again.coercions.is_empty(), "lax again coerced");
            }
        }
        let Some(value) = &value else {
            continue;
        };
        let by_value = v.validate_value(value, mode);
        assert_eq!(
            v.is_valid(value, mode),
            by_value.is_ok(),
            "{mode:?}: is_valid on the value"
        );
        match (&by_text, &by_value) {
            (Ok(a), Ok(b)) => {
                assert_eq!(
                    *a.arguments, *b.arguments,
                    "{mode:?}: normalized arguments differ"
                );
                assert_eq!(a.coercions, b.coercions, "{mode:?}: coercions differ");
            }
            (Err(a), Err(b)) => assert_eq!(codes(a), codes(b), "{mode:?}: errors differ"),
            _ => panic!(
                "{mode:?}: text path {:?} vs value path {:?} on {value}",
                by_text.as_ref().map_err(|e| e.message()).map(|_| ()),
                by_value.as_ref().map_err(|e| e.message()).map(|_| ())
            ),
        }
        if mode == Mode::Strict && !has_inexact_integer(value) {
            let annotating = tool.annotating.validate_value(value, mode);
            assert_eq!(
                tool.reference_annotating.is_valid(value),
                annotating.is_ok(),
                "strict mode (formats annotated) disagrees with the jsonschema crate on {value}: {:?}",
                annotating.as_ref().err().map(|e| e.message())
            );
            if !has_misread_digits(value) {
                assert_eq!(
                    tool.reference.is_valid(value),
                    by_text.is_ok(),
                    "strict mode disagrees with the jsonschema crate on {value}: {:?}",
                    by_text.as_ref().err().map(|e| e.message())
                );
            }
        }
    }
});
