//! `@format` asserted: a table of valid and invalid values per format in both modes, the ways to
//! turn it off, and a differential property against the jsonschema crate with format validation
//! on.

use proptest::prelude::*;
use serde_json::{json, Value};
use tooldef::model::Format;
use tooldef::validate::{ErrorCode, Mode, Validator};

fn validator(format: &str, attrs: &str) -> Validator {
    let source = format!("/// T.\n{attrs}\ntool t {{ v: string @format({format}) }}\n");
    let module = tooldef::compile(&source).expect("compiles").module;
    Validator::new(&module, &module.tools[0]).expect("validator")
}

/// Each format with values it accepts and values it refuses.
const TABLE: &[(&str, &[&str], &[&str])] = &[
    (
        "date",
        &["2024-02-29", "1999-12-31"],
        &[
            "yesterday",
            "2023-02-29",
            "2024-13-01",
            "2024-1-1",
            "06/19/1963",
        ],
    ),
    (
        "date-time",
        &["2024-05-31T09:30:00Z", "1998-12-31t23:59:60.5+00:00"],
        &[
            "2024-05-31 09:30:00Z",
            "2024-05-31T09:30:00",
            "tomorrow at noon",
        ],
    ),
    (
        "time",
        &["09:30:00Z", "01:29:60+01:30"],
        &["09:30", "08:30:06 PST", "22:59:60Z"],
    ),
    (
        "duration",
        &["P1DT12H", "PT0S", "P2W", "P1Y2M"],
        &["P", "PT", "1 day", "P1Y2W", "P1Y1D"],
    ),
    (
        "email",
        &["ada@example.com", "joe@[127.0.0.1]"],
        &["not-an-email", "@example.com", "a@-b.com"],
    ),
    (
        "hostname",
        &["api.example.com", "localhost"],
        &["-a.example", "a_b.example", "ab--c.example", ""],
    ),
    (
        "ipv4",
        &["192.0.2.1", "0.0.0.0"],
        &["256.0.0.1", "087.10.0.1", "1.2.3"],
    ),
    (
        "ipv6",
        &["::1", "2001:db8::1"],
        &["12345::", "1:2:3:4:5:6:7:8:9"],
    ),
    (
        "uri",
        &["https://example.com/a?b#c", "urn:isbn:0451450523"],
        &["//example.com", "no scheme", "http://exa mple.com"],
    ),
    (
        "uuid",
        &["123e4567-e89b-12d3-a456-426614174000"],
        &[
            "123e4567e89b12d3a456426614174000",
            "123e4567-e89b-12d3-a456",
        ],
    ),
];

#[test]
fn every_format_in_both_modes() {
    for (format, valid, invalid) in TABLE {
        let v = validator(format, "");
        for mode in [Mode::Strict, Mode::Lax] {
            for s in *valid {
                let args = json!({ "v": s });
                let out = v
                    .validate_value(&args, mode)
                    .unwrap_or_else(|e| panic!("{format} {s:?}: {}", e.message()));
                assert_eq!(out.arguments["v"], json!(s));
            }
            for s in *invalid {
                let e = v
                    .validate_value(&json!({ "v": s }), mode)
                    .expect_err(&format!("{format} {s:?}"));
                assert_eq!(e.errors.len(), 1);
                assert_eq!(e.errors[0].code, ErrorCode::FormatMismatch);
                assert_eq!(e.errors[0].path, "/v");
                // The message names the format and shows a valid value.
                let message = e.errors[0].message();
                assert!(message.contains("e.g. \""), "{message}");
                assert!(message.starts_with("must be "), "{message}");
            }
        }
    }
}

#[test]
fn formats_can_be_an_annotation() {
    // The tool attribute.
    let v = validator("date", "@formats(annotate)");
    assert!(v.is_valid(r#"{"v": "yesterday"}"#, Mode::Strict));
    // The validator option.
    let v = validator("date", "").without_formats();
    assert!(v.is_valid(r#"{"v": "yesterday"}"#, Mode::Strict));
    assert!(v.validate_str(r#"{"v": "yesterday"}"#, Mode::Lax).is_ok());
    // Asserting, the same text fails on both paths.
    let v = validator("date", "@formats(assert)");
    assert!(!v.is_valid(r#"{"v": "yesterday"}"#, Mode::Strict));
    assert!(v.validate_str(r#"{"v": "yesterday"}"#, Mode::Lax).is_err());
    // The attribute prints and recompiles.
    let module =
        tooldef::compile("/// T.\n@formats(annotate)\ntool t { v: string @format(date) }\n")
            .expect("compiles")
            .module;
    let printed = module.to_source().expect("prints");
    assert!(printed.contains("@formats(annotate)"), "{printed}");
    // A word other than the two is an error.
    assert!(tooldef::compile("/// T.\n@formats(maybe)\ntool t {}\n").is_err());
}

#[test]
fn a_default_must_be_a_valid_value_of_its_format() {
    let e = tooldef::compile("/// T.\ntool t { d?: string @format(date) = \"today\" }\n")
        .expect_err("the default is not a date");
    assert!(e.to_string().contains("date"), "{e}");
}

/// Strings near each format's syntax, so that both verdicts occur.
fn near(format: &'static str) -> BoxedStrategy<String> {
    let pattern = match format {
        // Digits where the grammar has digits: the jsonschema crate (0.60) reads any byte
        // there as a digit, so that `-0---01-0-` is a date to it.
        "date" => "[0-9]{4}-[0-1][0-9]-[0-3][0-9]|[0-9]{0,4}-?[0-9]{0,2}-?[0-9]{0,3}",
        "time" => "[0-2][0-9]:[0-5][0-9]:[056][0-9](\\.[0-9]{0,2})?(Z|z|[+-][0-2][0-9]:[0-6][0-9])?",
        "date-time" => "20[0-9]{2}-0[1-2]-[0-3][0-9][Tt ][0-2][0-9]:[0-5][0-9]:[056][0-9](Z|[+-]0[0-9]:[0-5]0)?",
        "duration" => "P?([0-9]{1,2}[YMWD]){0,3}(T([0-9]{1,2}[HMS]){0,3})?",
        "email" => "[a-z.~\"]{0,4}@?[a-z0-9.-]{0,8}|[a-z]{1,3}@\\[[0-9.]{0,9}\\]",
        "hostname" => "[a-z0-9-]{0,5}(\\.[a-z0-9_-]{0,5}){0,3}",
        "ipv4" => "[0-9]{1,3}(\\.[0-9]{1,3}){0,4}",
        "ipv6" => "[0-9a-f:.]{0,20}",
        "uri" => "[a-z+.-]{0,5}:?[/?#a-z%0-9@:\\[\\] ]{0,12}",
        _ => "[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-Fg]{11,13}",
    };
    prop::string::string_regex(pattern)
        .expect("a valid generator")
        .boxed()
}

fn reference(format: &str) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&json!({ "type": "string", "format": format }))
        .expect("compiles")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// tooldef's verdict on a string equals the jsonschema crate's with format validation on.
    #[test]
    fn formats_agree_with_jsonschema(
        (format, s) in prop::sample::select(Format::ALL.iter().map(|f| f.as_str()).collect::<Vec<_>>()).prop_flat_map(|f| (Just(f), near(f)))
    ) {
        let v = validator(format, "");
        let ours = v.is_valid(&json!({ "v": s }), Mode::Strict);
        let theirs = reference(format).is_valid(&Value::String(s.clone()));
        prop_assert_eq!(ours, theirs, "{} {:?}", format, s);
    }
}
