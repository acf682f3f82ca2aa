//! Lenient reading in lax mode: each repair, the near misses that stay errors, strict mode
//! untouched, and valid JSON read exactly as before with no repair recorded.

use proptest::prelude::*;
use serde_json::{json, Value};
use tooldef::validate::{ErrorCode, Mode, RepairKind, Validator};

fn weather() -> Validator {
    let module = tooldef::compile(
        "/// Weather.\ntool w {\n  city: string\n  days?: integer = 1\n  units?: string[]\n  alert?: boolean\n  note?: string | null\n}\n",
    )
    .expect("compiles")
    .module;
    Validator::new(&module, &module.tools[0]).expect("validator")
}

#[test]
fn each_repair_in_lax_mode() {
    use RepairKind::*;
    let v = weather();
    let cases: &[(&str, Value, &[RepairKind])] = &[
        (
            "Sure! Here is the call:\n```json\n{\"city\": \"Paris\"}\n```",
            json!({"city": "Paris", "days": 1}),
            &[CodeFence],
        ),
        (
            "I will call it with {\"city\": \"Paris\", \"days\": 3} now.",
            json!({"city": "Paris", "days": 3}),
            &[SurroundingText],
        ),
        (
            "{\"city\": \"Paris\", \"units\": [\"c\", \"f\",],}",
            json!({"city": "Paris", "days": 1, "units": ["c", "f"]}),
            &[TrailingComma, TrailingComma],
        ),
        (
            "{'city': 'Paris'}",
            json!({"city": "Paris", "days": 1}),
            &[SingleQuotes, SingleQuotes],
        ),
        (
            "{city: \"Paris\", days: 2}",
            json!({"city": "Paris", "days": 2}),
            &[UnquotedKey, UnquotedKey],
        ),
        (
            "{\"city\": \"Paris\", \"alert\": True, \"note\": None}",
            json!({"city": "Paris", "days": 1, "alert": true, "note": null}),
            &[PythonLiteral, PythonLiteral],
        ),
        (
            "{\"city\": \"Paris\" /* the capital */, // days left out\n}",
            json!({"city": "Paris", "days": 1}),
            &[Comment, TrailingComma, Comment],
        ),
        (
            "{\"city\": \"Paris\", \"units\": [\"c\"",
            json!({"city": "Paris", "days": 1, "units": ["c"]}),
            &[ClosedBrackets],
        ),
        (
            "{\"city\": \"Paris \\ud83d\", \"note\": \"\\ud83d\\ude00\"}",
            json!({"city": "Paris \u{fffd}", "days": 1, "note": "\u{1f600}"}),
            &[LoneSurrogate],
        ),
        (
            "{\"city\": \"Paris\nFrance\", \"note\": \"a\tb\"}",
            json!({"city": "Paris\nFrance", "days": 1, "note": "a\tb"}),
            &[ControlCharacter, ControlCharacter],
        ),
        (
            r#"{"city": "C:\Users\me", "note": "it\'s"}"#,
            json!({"city": "C:\\Users\\me", "days": 1, "note": "it's"}),
            &[InvalidEscape, InvalidEscape, InvalidEscape],
        ),
        (
            "{\"city\": \"Paris\", \"days\": +3}",
            json!({"city": "Paris", "days": 3}),
            &[NumberForm],
        ),
        (
            r"{'city': 'C:\Users', 'note': 'it\'s'}",
            json!({"city": "C:\\Users", "days": 1, "note": "it's"}),
            &[
                SingleQuotes,
                SingleQuotes,
                InvalidEscape,
                SingleQuotes,
                SingleQuotes,
            ],
        ),
    ];
    for (text, expected, kinds) in cases {
        let out = v
            .validate_str(text, Mode::Lax)
            .unwrap_or_else(|e| panic!("{text}: {}", e.message()));
        assert_eq!(&*out.arguments, expected, "{text}");
        let got: Vec<RepairKind> = out.repairs.iter().map(|r| r.kind).collect();
        assert_eq!(&got, kinds, "{text}");
        assert!(out.repairs.iter().all(|r| r.line >= 1 && r.column >= 1));
        // Strict mode reads JSON only.
        let e = v.validate_str(text, Mode::Strict).expect_err(text);
        assert_eq!(e.errors[0].code, ErrorCode::InvalidJson, "{text}");
    }
}

/// Strict mode's one error for `text`: not JSON, placed at `line` and `column`, with a message
/// that says `words`, then "at line L, column C", then `after`.
/// The message of the first error strict mode finds in `text`.
fn strict_message(v: &Validator, text: &str) -> String {
    let e = v.validate_str(text, Mode::Strict).expect_err(text);
    e.errors[0].message().into_owned()
}

fn named_at(v: &Validator, text: &str, words: &str, (line, column): (usize, usize), after: &str) {
    let e = v.validate_str(text, Mode::Strict).expect_err(text);
    assert_eq!(e.errors.len(), 1, "{text}");
    let error = &e.errors[0];
    assert_eq!(error.code, ErrorCode::InvalidJson, "{text}");
    let place = error.position.expect("located");
    assert_eq!((place.line, place.column), (line, column), "{text}");
    let want = format!("{words} at line {line}, column {column}{after}");
    assert!(
        error.message().contains(&want),
        "{text}: {}",
        error.message()
    );
}

#[test]
fn strict_mode_names_a_lone_surrogate_where_it_stands() {
    let v = weather();
    // serde_json says "unexpected end of hex escape" or "lone leading surrogate in hex
    // escape", after the escape; the message names the escape and its own place.
    let half = " is half of a UTF-16 surrogate pair";
    named_at(
        &v,
        "{\"city\": \"Paris \\ud83d\"}",
        "`\\ud83d`",
        (1, 17),
        half,
    );
    named_at(&v, "{\"city\":\n \"é\\udc00x\"}", "`\\udc00`", (2, 4), half);
    named_at(
        &v,
        "{\"city\": \"\\ud83d\\u0041\"}",
        "`\\ud83d`",
        (1, 11),
        half,
    );
    // An escaped backslash before `u` is no escape of a code unit: serde_json's own words.
    let e = v
        .validate_str("{\"city\": \"\\\\ud83d\" x}", Mode::Strict)
        .expect_err("trailing text");
    let message = e.errors[0].message();
    assert!(!message.contains("surrogate"), "{message}");
}

#[test]
fn strict_mode_names_a_raw_control_character_where_it_stands() {
    let v = weather();
    let text = "{\"city\": \"Paris\nFrance\"}";
    named_at(&v, text, "a string holds a raw line break", (1, 16), "");
    let text = "{\"city\":\n \"é\tx\"}";
    named_at(&v, text, "a string holds a raw tab", (2, 4), "");
    let text = "{\"city\": \"a\u{7}\"}";
    let words = "a string holds the raw control character U+0007";
    named_at(
        &v,
        text,
        words,
        (1, 12),
        "; inside a JSON string write it as `\\u0007`",
    );
    // Outside a string, a control character is not JSON at all: serde_json's own words.
    let e = v
        .validate_str("{\"city\":\u{1} \"Paris\"}", Mode::Strict)
        .expect_err("not JSON");
    assert!(!e.errors[0].message().contains("a string holds"));
}

#[test]
fn strict_mode_names_a_number_json_does_not_spell() {
    // serde_json says "expected value" at a leading `+` or `.`, "invalid number" after a
    // trailing `.`; the message names the number and how JSON writes it.
    let v = weather();
    let spell = |json: &str| format!(" is a number JSON does not spell; write `{json}`");
    named_at(
        &v,
        r#"{"city": "P", "days": +3}"#,
        "`+3`",
        (1, 23),
        &spell("3"),
    );
    named_at(
        &v,
        "{\"city\": \"é\",\n \"days\": .5}",
        "`.5`",
        (2, 10),
        &spell("0.5"),
    );
    named_at(
        &v,
        r#"{"days": -.5e1, "city": "P"}"#,
        "`-.5e1`",
        (1, 10),
        &spell("-0.5e1"),
    );
    named_at(
        &v,
        r#"{"city": "P", "days": 3.}"#,
        "`3.`",
        (1, 23),
        &spell("3.0"),
    );
    named_at(
        &v,
        r#"{"city": "P", "days": 3.,"alert": true}"#,
        "`3.`",
        (1, 23),
        &spell("3.0"),
    );
    // A number whose value is not certain keeps serde_json's words.
    let message = strict_message(&v, r#"{"city": "P", "days": 007}"#);
    assert!(!message.contains("does not spell"), "{message}");
}

#[test]
fn strict_mode_names_what_lax_mode_would_repair() {
    // serde_json says "key must be a string" or "expected value"; the message names the quotes,
    // the key or the literal, and how JSON writes it.
    let v = weather();
    let quotes = "; JSON writes strings in double quotes";
    named_at(
        &v,
        "{'city': 'P'}",
        "a string in single quotes",
        (1, 2),
        quotes,
    );
    named_at(
        &v,
        r#"{"city": 'P'}"#,
        "a string in single quotes",
        (1, 10),
        quotes,
    );
    let key = " has no quotes; JSON writes it `\"days\"`";
    named_at(
        &v,
        "{\"city\": \"é\",\n  days: 2}",
        "the key `days`",
        (2, 3),
        key,
    );
    let python = |json: &str| format!(" is Python's; JSON writes `{json}`");
    named_at(
        &v,
        r#"{"city": "P", "alert": True}"#,
        "`True`",
        (1, 24),
        &python("true"),
    );
    named_at(
        &v,
        r#"{"city": "P", "note": None}"#,
        "`None`",
        (1, 23),
        &python("null"),
    );
    named_at(
        &v,
        r#"{"city": "P", "alert": [False]}"#,
        "`False`",
        (1, 25),
        &python("false"),
    );
    // A bare word that is neither keeps serde_json's words.
    let message = strict_message(&v, r#"{"city": Paris}"#);
    assert!(message.contains("expected value"), "{message}");
}

#[test]
fn strict_mode_names_an_escape_json_does_not_have() {
    let v = weather();
    let none = " is no escape a JSON string has";
    named_at(&v, r#"{"city": "C:\Users"}"#, r"`\U`", (1, 13), none);
    named_at(&v, r#"{"city": "it\'s"}"#, r"`\'`", (1, 13), none);
    named_at(&v, r#"{"city": "a\user"}"#, r"`\u`", (1, 12), none);
    named_at(
        &v,
        r#"{"city": "a\\b", "note": "\é"}"#,
        r"`\é`",
        (1, 27),
        none,
    );
}

#[test]
fn a_unicode_escape_cut_short_is_named_not_guessed() {
    let v = weather();
    // serde_json stops past the string's end, reading `", ` as hex digits.
    let text = r#"{"city": "a\u12", "days": 1}"#;
    for mode in [Mode::Strict, Mode::Lax] {
        let e = v.validate_str(text, mode).expect_err(text);
        assert_eq!(e.errors[0].code, ErrorCode::InvalidJson);
        assert!(
            e.errors[0].message().contains(
                "`\\u12` at line 1, column 12 is a `\\u` escape without its four hex digits"
            ),
            "{}",
            e.errors[0].message()
        );
    }
}

#[test]
fn near_misses_stay_located_errors() {
    let v = weather();
    for text in [
        // Cut inside a string, and after a colon: more than closing brackets are missing.
        "{\"city\": \"Par",
        "{\"city\":",
        // A bare word as a value is not guessed at.
        "{\"city\": Paris}",
        // Two values.
        "{\"city\": \"a\"} {\"city\": \"b\"",
        // No value at all.
        "I cannot help with that.",
    ] {
        let e = v.validate_str(text, Mode::Lax).expect_err(text);
        assert_eq!(e.errors[0].code, ErrorCode::InvalidJson, "{text}");
        assert!(e.errors[0].position.is_some(), "{text}: located");
    }
    // What the repairs leave is the error, placed in the text as sent (not a problem they
    // mended, such as the single quotes before it).
    for (text, words, place) in [
        (
            "{'city': Paris}",
            "expected value at line 1, column 10",
            (1, 10),
        ),
        (
            "{\n  // the city\n  city: Paris}",
            "expected value at line 3, column 9",
            (3, 9),
        ),
        (
            "{'city': 'é', /* c */ 'days': 1.2.3}",
            "expected `,` or `}` at line 1, column 34",
            (1, 34),
        ),
        (
            "{'city': True, 'note': 'a\\u12'}",
            "`\\u12` at line 1, column 26 is a `\\u` escape without its four hex digits",
            (1, 26),
        ),
    ] {
        let e = v.validate_str(text, Mode::Lax).expect_err(text);
        let message = e.errors[0].message();
        assert!(message.contains(words), "{text}: {message}");
        let at = e.errors[0].position.expect("located");
        assert_eq!((at.line, at.column), place, "{text}");
    }
    // A cut-off document that closes into invalid arguments keeps the reader's error.
    let e = v
        .validate_str("{\"units\": [\"c\"", Mode::Lax)
        .expect_err("city is missing");
    assert_eq!(e.errors[0].code, ErrorCode::InvalidJson);
    // A repaired document with real problems reports them.
    let e = v
        .validate_str("{'city': 5, 'days': 'many'}", Mode::Lax)
        .expect_err("wrong types");
    assert!(e.errors.iter().any(|e| e.path == "/days"));
}

/// A JSON text of `value` in almost-JSON: single quotes, unquoted keys, trailing commas, Python
/// literals and numbers as JavaScript writes them (`+5`, `.5`, `5.`), chosen by `style`.
fn almost(value: &Value, style: u8) -> String {
    match value {
        Value::Null if style & 8 != 0 => "None".into(),
        Value::Bool(true) if style & 8 != 0 => "True".into(),
        Value::Bool(false) if style & 8 != 0 => "False".into(),
        Value::String(s) if style & 1 != 0 && !s.contains(['\'', '\\']) => {
            let inner = serde_json::to_string(s).unwrap_or_default();
            format!("'{}'", &inner[1..inner.len() - 1])
        }
        Value::Array(items) => {
            let mut out: Vec<String> = items.iter().map(|i| almost(i, style)).collect();
            if style & 4 != 0 {
                if let Some(last) = out.last_mut() {
                    last.push(',');
                }
            }
            format!("[{}]", out.join(","))
        }
        Value::Object(m) => {
            let mut out: Vec<String> = m
                .iter()
                .map(|(k, v)| {
                    let key = if style & 2 != 0
                        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        k.clone()
                    } else {
                        serde_json::to_string(k).unwrap_or_default()
                    };
                    format!("{key}: {}", almost(v, style))
                })
                .collect();
            if style & 4 != 0 {
                if let Some(last) = out.last_mut() {
                    last.push(',');
                }
            }
            format!("{{{}}}", out.join(", "))
        }
        Value::Number(n) if style & 16 != 0 => {
            let t = n.to_string();
            if let Some(frac) = t.strip_prefix("0.") {
                format!(".{frac}")
            } else if let Some(frac) = t.strip_prefix("-0.") {
                format!("-.{frac}")
            } else if let Some(int) = t.strip_suffix(".0") {
                format!("{int}.")
            } else if t.starts_with('-') {
                t
            } else {
                format!("+{t}")
            }
        }
        other => other.to_string(),
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(|n| json!(n)),
        (-1000i64..1000).prop_map(|n| json!(n as f64 / 8.0)),
        "[a-z \"'é]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,4}|[ \"]{1,2}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn anything() -> Validator {
    let module = tooldef::compile("/// Any.\ntool a { v: any }\n")
        .expect("compiles")
        .module;
    Validator::new(&module, &module.tools[0]).expect("validator")
}

proptest! {
    /// Valid JSON is read exactly as the strict reader reads it, with no repair recorded.
    #[test]
    fn valid_json_is_read_as_it_is(value in any_value()) {
        let v = anything();
        let text = serde_json::to_string(&json!({ "v": value })).expect("JSON");
        let lax = v.validate_str(&text, Mode::Lax).expect("valid");
        let strict = v.validate_str(&text, Mode::Strict).expect("valid");
        prop_assert_eq!(&lax.arguments, &strict.arguments);
        prop_assert!(lax.repairs.is_empty());
    }

    /// Almost-JSON of a value reads as that value.
    #[test]
    fn almost_json_reads_as_its_value(value in any_value(), style in 1u8..32) {
        let v = anything();
        let wrapped = json!({ "v": value });
        let text = almost(&wrapped, style);
        let out = v.validate_str(&text, Mode::Lax);
        let out = out.map_err(|e| TestCaseError::fail(format!("{text}: {}", e.message())))?;
        prop_assert_eq!(&*out.arguments, &wrapped, "{}", text);
    }
}

/// Repairs at scale: half a million of them in one line, and deep unclosed nesting, read in
/// linear time (a quadratic walk would take minutes at this size).
#[test]
fn many_repairs_in_one_long_line() {
    let v = anything();
    let n = 500_000;
    let text = format!("{{'v': [{}]}}", "True,".repeat(n));
    let out = v.validate_str(&text, Mode::Lax).expect("repaired");
    assert_eq!(out.arguments["v"].as_array().map(Vec::len), Some(n));
    assert_eq!(out.repairs.len(), 1 + n + 1);
    assert_eq!(out.repairs.last().map(|r| r.column), Some(8 + 5 * n - 1));
    let deep = format!("{{\"v\": {}1", "[".repeat(100));
    let out = v.validate_str(&deep, Mode::Lax).expect("closed");
    assert_eq!(out.repairs.len(), 1);
}
