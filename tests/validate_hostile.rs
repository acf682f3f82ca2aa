//! Hostile arguments: a clear error or a correct verdict, never a panic.

use serde_json::{json, Value};
use tooldef::validate::{ErrorCode, Limits, Mode, RepairKind, Validator};

const SOURCE: &str = r#"
/// Hostile inputs.
tool h {
  anything?: any
  i?: integer
  r?: integer @max(100)
  s?: string
  short?: string @max_length(5)
  u?: integer[] @unique
  items?: integer[]
  mp?: map<integer>
}
"#;

fn validator() -> Validator {
    let module = tooldef::compile(SOURCE).expect("compiles").module;
    Validator::for_tool(&module, "h").expect("exists")
}

fn nested(levels: usize) -> String {
    format!(
        r#"{{"anything": {}1{}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

#[test]
fn deep_nesting_in_text() {
    let v = validator();
    // The arguments object is level 1: 127 arrays inside reach level 128, the limit.
    assert!(v.validate_str(&nested(127), Mode::Strict).is_ok());
    for levels in [128, 1_000, 1_000_000] {
        let err = v
            .validate_str(&nested(levels), Mode::Strict)
            .expect_err("too deep");
        assert_eq!(err.errors.len(), 1);
        assert_eq!(err.errors[0].code, ErrorCode::TooDeep);
        assert!(
            err.errors[0].message().contains("deeper than 128 levels"),
            "{}",
            err.errors[0].message()
        );
        assert!(err.errors[0].position.is_some());
        assert!(
            err.errors[0].path.starts_with("/anything/0/0"),
            "{}",
            err.errors[0].path
        );
    }
    // Objects count as well as arrays.
    let text = format!(
        "{}1{}",
        r#"{"anything": "#.to_string() + &r#"{"a": "#.repeat(200),
        "}".repeat(201)
    );
    let err = v.validate_str(&text, Mode::Lax).expect_err("too deep");
    assert_eq!(err.errors[0].code, ErrorCode::TooDeep);
    // The limit is configurable.
    let shallow = validator().with_limits(Limits {
        max_depth: 3,
        ..Limits::default()
    });
    assert!(shallow.validate_str(&nested(2), Mode::Strict).is_ok());
    assert!(shallow.validate_str(&nested(3), Mode::Strict).is_err());
    // Text and value name the same place: the first too deep in document order.
    let text = r#"{"anything": [[1, {"a": []}], [[[]]]], "b": [[[[]]]]}"#;
    let value: Value = serde_json::from_str(text).expect("JSON");
    for mode in [Mode::Strict, Mode::Lax] {
        let from_text = shallow.validate_str(text, mode).expect_err("too deep");
        let from_value = shallow.validate_value(&value, mode).expect_err("too deep");
        assert_eq!(from_text.errors[0].path, "/anything/0/1");
        assert_eq!(from_value.errors[0].path, from_text.errors[0].path);
    }
}

#[test]
fn deep_nesting_in_values() {
    let v = validator();
    let mut value = json!(1);
    for _ in 0..2_000 {
        value = Value::Array(vec![value]);
    }
    let mut map = serde_json::Map::new();
    map.insert("anything".into(), value);
    let args = Value::Object(map);
    let err = v.validate_value(&args, Mode::Strict).expect_err("too deep");
    assert_eq!(err.errors[0].code, ErrorCode::TooDeep);
    assert!(!v.is_valid(&args, Mode::Strict));
    assert!(!v.is_valid(&args, Mode::Lax));
    // Tear the value down without recursion.
    let mut cur = args;
    loop {
        cur = match cur {
            Value::Object(mut m) => match m.remove("anything") {
                Some(x) => x,
                None => break,
            },
            Value::Array(mut a) => match a.pop() {
                Some(x) => x,
                None => break,
            },
            _ => break,
        };
    }
}

#[test]
fn ten_megabyte_strings() {
    let big = "x".repeat(10 * 1024 * 1024);
    let text = format!(r#"{{"s": "{big}"}}"#);
    // Over the default text limit: a clear error naming the sizes.
    let v = validator();
    let err = v.validate_str(&text, Mode::Strict).expect_err("too large");
    assert_eq!(err.errors[0].code, ErrorCode::TooLarge);
    assert!(
        err.message()
            .contains("more than the limit of 4194304 bytes"),
        "{}",
        err.message()
    );
    assert!(err.message().len() < 2_000);
    // With a larger limit, the verdict.
    let roomy = validator().with_limits(Limits {
        max_bytes: 64 * 1024 * 1024,
        ..Limits::default()
    });
    let ok = roomy.validate_str(&text, Mode::Strict).expect("valid");
    assert_eq!(ok.arguments["s"].as_str().map(str::len), Some(big.len()));
    let err = roomy
        .validate_str(&format!(r#"{{"short": "{big}"}}"#), Mode::Strict)
        .expect_err("too long");
    assert_eq!(err.errors[0].code, ErrorCode::TooLong);
    assert!(
        err.message().len() < 2_000,
        "the message shortens the value"
    );
    // A parsed value is held to the same limit, measured as the JSON it would be.
    let value = json!({ "s": big });
    let err = validator()
        .validate_value(&value, Mode::Strict)
        .expect_err("too large");
    assert_eq!(err.errors[0].code, ErrorCode::TooLarge);
    assert!(roomy.validate_value(&value, Mode::Strict).is_ok());
}

#[test]
fn huge_arrays() {
    let v = validator();
    let n = 200_000;
    let items: Vec<Value> = (0..n).map(|i| json!(i)).collect();
    let args = json!({ "u": items });
    assert!(v.is_valid(&args, Mode::Strict));
    assert!(v.validate_value(&args, Mode::Strict).is_ok());
    let mut dup = items.clone();
    dup.push(json!(12_345.0));
    let err = v
        .validate_value(&json!({ "u": dup }), Mode::Strict)
        .expect_err("duplicate");
    assert_eq!(err.errors.len(), 1);
    assert_eq!(err.errors[0].code, ErrorCode::DuplicateItems);
    assert!(
        err.errors[0]
            .message()
            .contains(&format!("items 12345 and {n} are equal")),
        "{}",
        err.errors[0].message()
    );
    // Every bad item is an error; the message stays readable.
    let bad: Vec<Value> = (0..n).map(|i| json!(format!("x{i}"))).collect();
    let err = v
        .validate_value(&json!({ "items": bad }), Mode::Lax)
        .expect_err("all wrong");
    assert_eq!(err.errors.len(), n);
    assert_eq!(err.errors[n - 1].path, format!("/items/{}", n - 1));
    assert!(
        err.message().contains("and 199900 more problems"),
        "{}",
        &err.message()[err.message().len() - 600..]
    );
    // Many keys in a map.
    let map: serde_json::Map<String, Value> =
        (0..50_000).map(|i| (format!("k{i}"), json!(i))).collect();
    assert!(v
        .validate_value(&json!({ "mp": map }), Mode::Strict)
        .is_ok());
}

#[test]
fn lone_surrogates_and_odd_unicode() {
    let v = validator();
    for text in [
        r#"{"s": "\ud800"}"#,
        r#"{"s": "\udc00x"}"#,
        r#"{"s": "\ud800\u0041"}"#,
        r#"{"\ud800": 1}"#,
    ] {
        let err = v.validate_str(text, Mode::Strict).expect_err(text);
        assert_eq!(err.errors[0].code, ErrorCode::InvalidJson, "{text}");
        assert!(err.errors[0].position.is_some());
        // Lax mode reads the half as U+FFFD, and says so.
        match v.validate_str(text, Mode::Lax) {
            Ok(ok) => {
                assert_eq!(ok.repairs.len(), 1, "{text}");
                assert_eq!(ok.repairs[0].kind, RepairKind::LoneSurrogate, "{text}");
                assert!(ok.arguments["s"]
                    .as_str()
                    .is_some_and(|s| s.starts_with('\u{fffd}')));
            }
            Err(err) => assert_eq!(err.errors[0].code, ErrorCode::UnknownKey, "{text}"),
        }
    }
    // A proper pair is one code point.
    let ok = v
        .validate_str(r#"{"short": "\ud83d\ude00\ud83d\ude00"}"#, Mode::Strict)
        .expect("two code points");
    assert_eq!(ok.arguments["short"], json!("😀😀"));
    // Keys that need escaping in a JSON pointer.
    let err = v
        .validate_str(r#"{"a/b~c": 1, "\u0000": 2, "ünï": 3}"#, Mode::Strict)
        .expect_err("unknown keys");
    let paths: Vec<&str> = err.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/a~1b~0c", "/\u{0}", "/ünï"]);
    // Invalid UTF-8 cannot reach a &str; bidi and zero-width characters are just characters.
    assert!(v
        .validate_str("{\"s\": \"\u{202e}\u{200b}\"}", Mode::Strict)
        .is_ok());
}

#[test]
fn integers_beyond_u64() {
    let v = validator();
    // Beyond u64 the reader rounds to a double (`1.2345678901234568e29`): an integer field
    // refuses it rather than pass on a number nobody wrote, whatever its bounds.
    for field in ["i", "r"] {
        let err = v
            .validate_str(
                &format!(r#"{{"{field}": 123456789012345678901234567890}}"#),
                Mode::Strict,
            )
            .expect_err("not kept exactly");
        assert_eq!(err.errors[0].code, ErrorCode::WrongType);
        assert!(
            err.errors[0].message().contains("cannot be kept exactly"),
            "{}",
            err.errors[0].message()
        );
    }
    let err = v
        .validate_str(r#"{"i": -15000000000.5}"#, Mode::Strict)
        .expect_err("fraction");
    assert_eq!(err.errors[0].code, ErrorCode::WrongType);
    // Beyond f64: the text is not a representable number.
    let err = v
        .validate_str(r#"{"i": 1e400}"#, Mode::Strict)
        .expect_err("out of range");
    assert_eq!(err.errors[0].code, ErrorCode::InvalidJson);
    assert!(
        err.errors[0].message().contains("out of range"),
        "{}",
        err.errors[0].message()
    );
    let huge = format!(r#"{{"i": 1{}}}"#, "0".repeat(400));
    assert_eq!(
        v.validate_str(&huge, Mode::Strict)
            .expect_err("range")
            .errors[0]
            .code,
        ErrorCode::InvalidJson
    );
    // Lax strings beyond i64/u64 are refused, not rounded.
    for s in [
        "18446744073709551616",
        "-9223372036854775809",
        "99999999999999999999999999",
    ] {
        let err = v
            .validate_value(&json!({ "i": s }), Mode::Lax)
            .expect_err(s);
        assert_eq!(err.errors[0].code, ErrorCode::NotCoercible, "{s}");
        assert!(
            err.errors[0].message().contains("64-bit integer range"),
            "{}",
            err.errors[0].message()
        );
    }
    assert!(v
        .validate_value(&json!({ "i": u64::MAX }), Mode::Strict)
        .is_ok());
    assert!(v
        .validate_value(&json!({ "i": i64::MIN }), Mode::Strict)
        .is_ok());
}

#[test]
fn garbage_text_never_panics() {
    let v = validator();
    let samples = [
        "",
        " ",
        "{\"s\":",
        "{\"s\": \"\\",
        "{\"s\": \"\\u12\"}",
        "[",
        "]",
        "{{}}",
        "{\"a\" 1}",
        "nul",
        "tru",
        "-",
        "01",
        "1.",
        ".5",
        "\u{0}",
    ];
    for text in samples {
        let err = v.validate_str(text, Mode::Lax).expect_err(text);
        assert_eq!(err.errors.len(), 1, "{text}");
        assert!(!err.message().is_empty());
    }
    // Almost-JSON that lax mode's lenient reading repairs, and strict mode refuses.
    for text in [
        "{\"s\": 'x'}",
        "{s: \"1\"}",
        "{\"s\": \"1\",}",
        "\u{feff}{}",
        "{\"s\": \"\n\"}",
    ] {
        let ok = v.validate_str(text, Mode::Lax).expect(text);
        assert_eq!(ok.repairs.len(), 1, "{text}");
        assert!(v.validate_str(text, Mode::Strict).is_err(), "{text}");
    }
}

mod arbitrary_text {
    use super::*;
    use proptest::prelude::*;

    fn config() -> ProptestConfig {
        ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        /// Any text: a verdict or clear errors, never a panic; text errors carry a position.
        #[test]
        fn any_text_gets_a_verdict(text in r#"[\{\}\[\]":,0-9a-z\\ .eE+\-\n\u{0}-\u{1f}é😀]{0,40}"#, lax in any::<bool>()) {
            let v = validator();
            let mode = if lax { Mode::Lax } else { Mode::Strict };
            match v.validate_str(&text, mode) {
                Ok(out) => prop_assert!(out.arguments.is_object()),
                Err(e) => {
                    prop_assert!(!e.errors.is_empty());
                    for err in &e.errors {
                        if err.code == ErrorCode::InvalidJson {
                            prop_assert!(err.position.is_some());
                        }
                    }
                    prop_assert!(e.message().contains("Signature: h("));
                }
            }
            prop_assert_eq!(v.is_valid(text.as_str(), mode), v.validate_str(&text, mode).is_ok());
        }

        /// Valid arguments with one character inserted or removed anywhere.
        #[test]
        fn damaged_arguments(at in 0usize..60, insert in proptest::option::of(r#"[\{\}\[\]":,0-9\\]"#), lax in any::<bool>()) {
            let good = r#"{"i": 5, "s": "x\u00e9", "u": [1, 2], "mp": {"a": 1}, "anything": [null, {"k": true}]}"#;
            let mut text: Vec<char> = good.chars().collect();
            let at = at.min(text.len());
            match insert {
                Some(c) => text.splice(at..at, c.chars()).for_each(drop),
                None if at < text.len() => {
                    text.remove(at);
                }
                None => {}
            }
            let text: String = text.into_iter().collect();
            let v = validator();
            let mode = if lax { Mode::Lax } else { Mode::Strict };
            let result = v.validate_str(&text, mode);
            if let Ok(strict_text) = serde_json::from_str::<Value>(&text) {
                // When serde_json reads it (it keeps the last of duplicate keys), our verdict on
                // the text is at most as lenient as on the value.
                if result.is_ok() {
                    prop_assert!(v.validate_value(&strict_text, mode).is_ok());
                }
            } else if let Ok(valid) = &result {
                // Text that is not JSON passes only in lax mode, through recorded repairs.
                prop_assert!(lax && !valid.repairs.is_empty(), "{}", text);
            }
        }
    }
}

#[test]
fn every_message_of_a_large_call_is_written_in_bounded_work() {
    // Each "did you mean" compares the value with every candidate: 20,000 unknown keys against
    // 1,000 fields took 10 s to write every message. The messages of one call share a budget.
    let fields: String = (0..1_000)
        .map(|i| format!("  field_number_{i}?: string\n"))
        .collect();
    let values: Vec<String> = (0..1_000).map(|i| format!("value_number_{i}")).collect();
    let source = format!(
        "enum E {{ {} }}\n/// T.\ntool t {{\n  value?: E\n{fields}}}\n",
        values.join(" ")
    );
    let module = tooldef::compile(&source).expect("compiles").module;
    let v = Validator::for_tool(&module, "t").expect("exists");
    let mut call = serde_json::Map::new();
    call.insert("value".into(), json!("valeu_number_0"));
    for i in 0..20_000 {
        call.insert(format!("feld_numbr_{i}x"), json!(1));
    }
    let invalid = v
        .validate_value(&Value::Object(call), Mode::Strict)
        .expect_err("invalid");
    let messages: Vec<String> = invalid.messages().map(|m| m.into_owned()).collect();
    assert_eq!(messages.len(), 20_001);
    // The first problems get their suggestion (the enum value, then the first unknown keys);
    // once the budget is spent the rest give the general help.
    assert!(
        messages[0].contains("did you mean \"value_number_0\"?"),
        "{}",
        messages[0]
    );
    assert!(
        messages[1].contains("did you mean `field_number_0`?"),
        "{}",
        messages[1]
    );
    let last = &messages[20_000];
    assert!(!last.contains("did you mean"), "{last}");
    assert!(
        last.contains("the parameters are: value, field_number_0"),
        "{last}"
    );
    // The JSON list carries the same messages, and each error keeps the one it was given.
    let listed = invalid.errors_json();
    assert_eq!(listed[20_000]["message"], last.as_str());
    assert_eq!(invalid.errors[20_000].message(), last.as_str());
    assert_eq!(invalid.errors[1].code, ErrorCode::UnknownKey);
}

/// The size limit holds whatever the encoding: an argument object a provider sent parsed
/// (Anthropic, Gemini, MCP) is measured as the JSON it would be, so a 50 MB object is
/// `too-large` as the same arguments sent as text are (it used to be "valid"). Sizes double
/// around a limit of 1 MiB; text and value get one verdict, in both modes and in `is_valid`,
/// and through a provider's envelope.
#[test]
fn the_size_limit_holds_for_values_as_for_text() {
    use tooldef::envelope::Provider;
    use tooldef::{DispatchOptions, Toolset, Verdict};

    let limit = 1 << 20;
    let v = validator().with_limits(Limits {
        max_bytes: limit,
        ..Limits::default()
    });
    for kib in [128, 256, 512, 1024, 2048, 4096] {
        // Strings with characters that JSON escapes, so that the measure counts escapes.
        let chunk = "ab\"c\\\n".repeat(kib * 1024 / 12);
        let value = serde_json::json!({ "s": chunk, "t": [1, 2.5, null, true, { "k": chunk }] });
        let text = serde_json::to_string(&value).unwrap();
        let over = text.len() > limit;
        for mode in [Mode::Strict, Mode::Lax] {
            let from_text = v.validate_str(&text, mode);
            let from_value = v.validate_value(&value, mode);
            assert_eq!(from_text.is_ok(), from_value.is_ok(), "{kib} KiB, {mode:?}");
            assert_eq!(v.is_valid(&value, mode), from_value.is_ok(), "{kib} KiB");
            if over {
                let err = from_value.expect_err("over the limit");
                assert_eq!(err.errors[0].code, ErrorCode::TooLarge, "{kib} KiB");
                // The size named is the text's own: the measure is exact.
                assert!(
                    err.message()
                        .contains(&format!("{} bytes long", text.len())),
                    "{kib} KiB: {}",
                    err.message()
                );
            }
        }
    }

    // From every provider that sends arguments as objects, with the default limit.
    let tools = Toolset::from_source("/// Store a blob.\ntool put { data: string }\n").unwrap();
    let big = "x".repeat(5 * 1024 * 1024);
    let responses = [
        (
            Provider::Anthropic,
            serde_json::json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "put", "input": {"data": big}}]}),
        ),
        (
            Provider::Gemini,
            serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "put", "args": {"data": big}}}]}}]}),
        ),
        (
            Provider::Mcp,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "put", "arguments": {"data": big}}}),
        ),
    ];
    for (provider, response) in responses {
        let out = tools
            .dispatch(provider, &response, &DispatchOptions::default())
            .unwrap_or_else(|e| panic!("{provider}: {e}"));
        match &out.calls[0].verdict {
            Verdict::Invalid(e) => assert_eq!(e.errors[0].code, ErrorCode::TooLarge, "{provider}"),
            other => panic!("{provider}: {other:?}"),
        }
    }
}
