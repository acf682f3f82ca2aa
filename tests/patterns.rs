//! `@pattern` means what ECMA-262 says, in strict mode as in the emitted schema:
//! 1. the JSON-Schema-Test-Suite's `optional/ecmascript-regex.json` (from `../shared/corpus/`,
//!    see its MANIFEST.md; the test prints a notice and passes when the corpus is absent, and
//!    fails when `CI=true`);
//! 2. for patterns using each class that ECMA-262 and the regex crate read differently, the
//!    validator's verdict equals the `jsonschema` crate's on the emitted schema, for every string
//!    of up to two characters and for random longer ones over an alphabet of ASCII and of the
//!    characters where the readings part (digits of other scripts, fullwidth digits, NBSP,
//!    U+FEFF, U+2028, U+0085, letters with diacritics, U+017F and U+212A under `(?i)`).
//!
//! The `jsonschema` crate (0.60) translates `\d`, `\w`, `\s` and their negations to ECMA-262's
//! sets (its `jsonschema-regex` crate, on regex-syntax's syntax tree) and runs the result with
//! `fancy-regex`, so its `\d` is ASCII. It leaves `\b`, `\B` and `.` to the regex crate, which
//! reads them as Unicode word boundaries and "anything but `\n`"; for patterns holding those,
//! the reference is the `jsonschema` crate on the same schema with ECMA-262's definitions
//! spelled out with lookaround, which `fancy-regex` runs ([`JSONSCHEMA_DIVERGES`] pins that).

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{json, Value};
use tooldef::validate::{Mode, Validator};

#[path = "support/corpus.rs"]
mod shared;

fn corpus() -> Option<PathBuf> {
    shared::corpus("ECMA-262 regex conformance")
}

/// A tool of one string parameter `s` with `@pattern(p)`: its validator and its emitted JSON
/// Schema.
fn tool(pattern: &str) -> (Validator, Value) {
    let literal = serde_json::to_string(pattern).unwrap();
    let source = format!("/// Test.\ntool t {{\n  s: string @pattern({literal})\n}}\n");
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("/{pattern}/ does not compile: {e:?}"))
        .module;
    let schema = tooldef::emit::parameters(&module, &module.tools[0]);
    assert_eq!(
        schema["properties"]["s"]["pattern"], pattern,
        "the pattern is emitted as written"
    );
    (Validator::for_tool(&module, "t").unwrap(), schema)
}

fn ours(v: &Validator, s: &str) -> bool {
    v.is_valid(&json!({ "s": s }), Mode::Strict)
}

// ---------------------------------------------------------------------------------------------
// 1. JSON-Schema-Test-Suite, optional/ecmascript-regex.json

/// Tests whose verdict differs, by `case / test`, with the reason.
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

#[test]
fn json_schema_test_suite_ecmascript_regex() {
    let Some(root) = corpus() else { return };
    let path = root.join("jsts/draft2020-12/optional/ecmascript-regex.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases: Value = serde_json::from_str(&text).unwrap();
    let (mut total, mut passed, mut seen_expected) = (0, 0, Vec::new());
    let mut unexpected = Vec::new();
    let cases = cases.as_array().unwrap();
    for case in cases {
        let cname = case["description"].as_str().unwrap();
        let schema = &case["schema"];
        // `pattern` runs as `@pattern` on a string parameter (the schemas leave `type` out:
        // other values pass). `patternProperties: {p: true}` with `additionalProperties: false`
        // has no equivalent in the language, but means exactly "every key matches p": the
        // pattern runs as `@pattern` on each key.
        let (pattern, on_keys) = if let Some(p) = schema["pattern"].as_str() {
            (p, false)
        } else {
            let pp = schema["patternProperties"].as_object().unwrap();
            assert_eq!(pp.len(), 1, "{cname}");
            assert_eq!(schema["additionalProperties"], json!(false), "{cname}");
            let (p, sub) = pp.iter().next().unwrap();
            assert_eq!(sub, &json!(true), "{cname}");
            (p.as_str(), true)
        };
        let (validator, _) = tool(pattern);
        for t in case["tests"].as_array().unwrap() {
            total += 1;
            let tname = format!("{cname} / {}", t["description"].as_str().unwrap());
            let data = &t["data"];
            let verdict = match (on_keys, data) {
                (false, Value::String(s)) => ours(&validator, s),
                (false, _) => true,
                (true, Value::Object(m)) => m.keys().all(|k| ours(&validator, k)),
                (true, _) => true,
            };
            if verdict == t["valid"].as_bool().unwrap() {
                passed += 1;
            } else if EXPECTED_FAILURES.iter().any(|(n, _)| *n == tname) {
                seen_expected.push(tname);
            } else {
                unexpected.push(format!(
                    "{tname}: /{pattern}/ on {data}: expected valid={}",
                    t["valid"]
                ));
            }
        }
    }
    println!(
        "optional/ecmascript-regex: {} cases, {total} tests, {passed} passed, {} expected failures",
        cases.len(),
        seen_expected.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} unexpected verdicts:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    for (n, _) in EXPECTED_FAILURES {
        assert!(
            seen_expected.iter().any(|s| s == n),
            "expected failure `{n}` now passes; remove it from the list"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Agreement with the `jsonschema` crate

/// ECMA-262's `\b`, spelled with lookaround for `fancy-regex`.
const B: &str = "(?:(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]))";
/// ECMA-262's `\B`.
const NB: &str = "(?:(?<=[A-Za-z0-9_])(?=[A-Za-z0-9_])|(?<![A-Za-z0-9_])(?![A-Za-z0-9_]))";
/// ECMA-262's `.`.
const DOT: &str = "[^\\n\\r\\u2028\\u2029]";

/// Patterns using each class, with the reference's spelling when the `jsonschema` crate does
/// not read the pattern as ECMA-262 (`\b`, `\B`, `.`); `{B}`, `{NB}` and `{DOT}` stand for the
/// spellings above.
const PATTERNS: &[(&str, Option<&str>)] = &[
    (r"^\d+$", None),
    (r"\d", None),
    (r"^\D+$", None),
    (r"^\w+$", None),
    (r"\w", None),
    (r"^\W+$", None),
    (r"^\s*$", None),
    (r"\s", None),
    (r"^\S+$", None),
    (r"^[\d]+$", None),
    (r"^[^\d]+$", None),
    (r"^[\w-]+$", None),
    (r"^[\d\s]+$", None),
    (r"^[^\w\s]+$", None),
    (r"^[\W\d]+$", None),
    (r"^[^\S ]+$", None),
    (r"^[\w.+-]+@[\w-]+$", None),
    (r"^\d{1,2}\s?\w$", None),
    (r"(?i)^\w+$", None),
    (r"(?i)^\W+$", None),
    (r"(?i)^[a-z]+$", None),
    (r"(?i)^[\d\s]+$", None),
    (r"\\d", None),
    (r"\ba", Some("{B}a")),
    (r"a\b", Some("a{B}")),
    (r"\b\d+\b", Some("{B}[0-9]+{B}")),
    (r"^\w+\b", Some("^[A-Za-z0-9_]+{B}")),
    (r"\B", Some("{NB}")),
    (r"a\B", Some("a{NB}")),
    (
        r"\B\s",
        Some(
            "{NB}[\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]",
        ),
    ),
    (r"^.$", Some("^{DOT}$")),
    (r"a.", Some("a{DOT}")),
    (r"^.+$", Some("^{DOT}+$")),
    (r"(?s)^.$", None),
];

/// The characters of the generated strings.
const ALPHABET: &[char] = &[
    'a',
    'Z',
    'k',
    's',
    '0',
    '9',
    '_',
    ' ',
    '-',
    '.',
    '@',
    '+',
    '\\',
    '\t',
    '\n',
    '\r',
    '\u{B}',
    '\u{C}',
    '\u{A0}',
    '\u{FEFF}',
    '\u{2028}',
    '\u{2029}',
    '\u{2003}',
    '\u{3000}',
    '\u{85}',
    '\u{663}',
    '\u{9EA}',
    '\u{FF13}',
    '\u{1D7D8}',
    'é',
    'É',
    'ß',
    '\u{17F}',
    '\u{212A}',
    '\u{300}',
    '😀',
];

struct Pair {
    pattern: &'static str,
    ours: Validator,
    reference: jsonschema::Validator,
}

fn pairs() -> Vec<Pair> {
    PATTERNS
        .iter()
        .map(|&(pattern, spelled)| {
            let (ours, mut schema) = tool(pattern);
            if let Some(spelled) = spelled {
                let spelled = spelled
                    .replace("{NB}", NB)
                    .replace("{B}", B)
                    .replace("{DOT}", DOT);
                schema["properties"]["s"]["pattern"] = json!(spelled);
            }
            let reference = jsonschema::validator_for(&schema).unwrap_or_else(|e| {
                panic!("/{pattern}/: the jsonschema crate refuses {schema}: {e}")
            });
            Pair {
                pattern,
                ours,
                reference,
            }
        })
        .collect()
}

fn agree(pairs: &[Pair], s: &str) -> Result<(), String> {
    for p in pairs {
        let args = json!({ "s": s });
        let want = p.reference.is_valid(&args);
        let got = p.ours.is_valid(&args, Mode::Strict);
        if got != want {
            return Err(format!(
                "/{}/ on {s:?}: tooldef says {got}, the jsonschema crate {want}",
                p.pattern
            ));
        }
    }
    Ok(())
}

/// Every string of at most two characters of the alphabet.
#[test]
fn strict_agrees_with_jsonschema_on_short_strings() {
    let pairs = pairs();
    let mut strings = vec![String::new()];
    for &a in ALPHABET {
        strings.push(a.to_string());
        for &b in ALPHABET {
            strings.push([a, b].iter().collect());
        }
    }
    let failures: Vec<String> = strings
        .iter()
        .filter_map(|s| agree(&pairs, s).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// Longer strings, where classes meet repetitions and boundaries.
    #[test]
    fn strict_agrees_with_jsonschema(chars in prop::collection::vec(prop::sample::select(ALPHABET), 0..12)) {
        thread_local! {
            static PAIRS: Vec<Pair> = pairs();
        }
        let s: String = chars.into_iter().collect();
        PAIRS.with(|pairs| agree(pairs, &s)).map_err(TestCaseError::fail)?;
    }
}

/// Where the `jsonschema` crate itself is not ECMA-262 (and why the patterns above spell `\b`,
/// `\B` and `.` out for it): should one of these change, the spelling can go.
#[test]
fn jsonschema_diverges() {
    let valid = |pattern: &str, s: &str| {
        jsonschema::validator_for(&json!({ "pattern": pattern }))
            .unwrap()
            .is_valid(&json!(s))
    };
    // ASCII `\d` and `\w`, as ECMA-262.
    assert!(!valid(r"^\d$", "\u{663}"));
    assert!(!valid(r"^\w$", "é"));
    assert!(valid(r"^\s$", "\u{FEFF}"));
    // A Unicode `\b` and a `.` that matches CR and U+2028, unlike ECMA-262.
    assert!(!valid(r"a\b", "aé"));
    assert!(valid(r"^.$", "\r"));
    assert!(valid(r"^.$", "\u{2028}"));
    // tooldef reads them as ECMA-262.
    assert!(ours(&tool(r"a\b").0, "aé"));
    assert!(!ours(&tool(r"^.$").0, "\r"));
    assert!(!ours(&tool(r"^.$").0, "\u{2028}"));
}
