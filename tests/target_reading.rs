//! Target-aware validation: a call read as the target showed the tool.

use serde_json::json;
use tooldef::emit::Target;
use tooldef::validate::{ErrorCode, Mode, Reading, Validator};

const WEATHER: &str = r#"
/// Get the weather.
tool w {
  city: string
  days?: integer @min(1) = 1
  at?: { lat: number, note?: string } | null
  tags?: Tag[]
}
type Tag { name: string, weight?: number = 1 }
"#;

fn validator(target: Target) -> Validator {
    let module = tooldef::compile(WEATHER).unwrap().module;
    Validator::for_target(&module, &module.tools[0], target).unwrap()
}

#[test]
fn null_for_an_optional_field_means_absent_in_the_strict_reading() {
    let v = validator(Target::OpenAiStrict);
    assert_eq!(v.reading(), Reading::NullForAbsent);
    let call =
        json!({"city": "Oslo", "days": null, "at": null, "tags": [{"name": "a", "weight": null}]});
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(
        *ok.arguments,
        json!({"city": "Oslo", "days": 1, "at": null, "tags": [{"name": "a", "weight": 1}]})
    );
    assert!(ok.coercions.is_empty(), "no lax coercion is turned on");
    // The same call as text takes the same path.
    let text = v.validate_str(&call.to_string(), Mode::Strict).unwrap();
    assert_eq!(text.arguments, ok.arguments);
}

#[test]
fn the_source_reading_still_rejects_that_null_in_strict_mode() {
    let v = validator(Target::OpenAi);
    assert_eq!(v.reading(), Reading::Source);
    let call = json!({"city": "Oslo", "days": null, "at": null, "tags": null});
    let err = v.validate_value(&call, Mode::Strict).unwrap_err();
    assert!(err.message().contains("omit the key"), "{}", err.message());
}

#[test]
fn the_strict_reading_asks_for_every_key_and_never_to_omit_one() {
    let v = validator(Target::OpenAiStrict);
    let err = v
        .validate_value(&json!({"city": "Oslo", "days": "x"}), Mode::Strict)
        .unwrap_err();
    let codes: Vec<ErrorCode> = err.errors.iter().map(|e| e.code).collect();
    assert!(codes.contains(&ErrorCode::MissingField), "{codes:?}");
    let message = err.message();
    assert!(!message.contains("omit"), "{message}");
    assert!(message.contains("days: integer >= 1 | null"), "{message}");
}

#[test]
fn lax_mode_stays_orthogonal() {
    let v = validator(Target::OpenAiStrict);
    // Lax mode accepts an omitted optional field and coerces "3".
    let call = json!({"city": "Oslo", "days": "3"});
    let ok = v.validate_value(&call, Mode::Lax).unwrap();
    assert_eq!(*ok.arguments, json!({"city": "Oslo", "days": 3}));
    assert_eq!(ok.coercions.len(), 1);
    // Strict mode does not coerce.
    assert!(!v.is_valid(
        &json!({"city": "Oslo", "days": "3", "at": null, "tags": null}),
        Mode::Strict
    ));
    assert!(v.is_valid(
        &json!({"city": "Oslo", "days": 3, "at": null, "tags": null}),
        Mode::Strict
    ));
}

#[test]
fn unique_items_are_compared_as_the_source_reads_them() {
    // `[{"a": null}, {"b": null}]` holds two distinct items in the shape strict mode shows, and
    // two empty objects in the source's: `@unique` is the source's, so the call is rejected, as
    // the source reading and lax mode reject it.
    let source = "/// U.\ntool u { v: ({ a?: boolean } | { b?: integer })[] @unique }";
    let module = tooldef::compile(source).unwrap().module;
    let v = Validator::for_target(&module, &module.tools[0], Target::OpenAiStrict).unwrap();
    let call = json!({"v": [{"a": null}, {"b": null}]});
    let err = v.validate_value(&call, Mode::Strict).unwrap_err();
    let codes: Vec<ErrorCode> = err.errors.iter().map(|e| e.code).collect();
    assert_eq!(codes, [ErrorCode::DuplicateItems], "{}", err.message());
    assert!(!err.message().contains("omit"), "{}", err.message());
    assert!(!v.is_valid(&call, Mode::Strict));
    assert!(v.validate_str(&call.to_string(), Mode::Strict).is_err());
    assert!(v.validate_value(&call, Mode::Lax).is_err());
    // Items that differ in the source's shape stay accepted.
    let call = json!({"v": [{"a": null}, {"b": 1}]});
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(*ok.arguments, json!({"v": [{}, {"b": 1}]}));
    assert!(v.is_valid(&call, Mode::Strict));
}

// ---------------------------------------------------------------------------------------------
// Lowered constructs: maps, extra keys and `any` for targets that cannot carry them

const LOWERED: &str = r#"
/// Tag a page.
tool tag {
  /// The tags.
  tags: map<integer>
  /// Anything.
  note?: any
  /// A labelled object with more keys.
  labels: { name: string, ...: boolean }
}
"#;

fn lowered(target: Target) -> Validator {
    let module = tooldef::compile(LOWERED).expect("compiles").module;
    Validator::for_target(&module, &module.tools[0], target).expect("the target lowers the tool")
}

#[test]
fn lowered_shapes_come_back_in_the_source_shape() {
    let call = json!({
        "tags": [{"key": "a", "value": 1}, {"key": "b", "value": 2}],
        "note": "{\"x\": [1, null]}",
        "labels": {"name": "n", "_extra_keys": [{"key": "red", "value": true}]}
    });
    for target in [Target::OpenAiStrict, Target::GeminiOpenApi] {
        let v = lowered(target);
        assert_ne!(v.reading(), Reading::Source, "{}", target.as_str());
        let ok = v
            .validate_value(&call, Mode::Strict)
            .unwrap_or_else(|e| panic!("{}: {}", target.as_str(), e.message()));
        assert_eq!(
            *ok.arguments,
            json!({
                "tags": {"a": 1, "b": 2},
                "note": {"x": [1, null]},
                "labels": {"name": "n", "red": true}
            }),
            "{}",
            target.as_str()
        );
        // Strict mode reads only the lowered shape; lax mode also reads the source's.
        let source_shaped = json!({"tags": {"a": 1}, "labels": {"name": "n"}});
        assert!(v.validate_value(&source_shaped, Mode::Strict).is_err());
        assert!(v.validate_value(&source_shaped, Mode::Lax).is_ok());
        assert!(v.validate_value(&call, Mode::Lax).is_ok());
    }
}

/// The one error of `call` for `target`: its code, pointer and message.
fn lowered_error(target: Target, call: serde_json::Value) -> (ErrorCode, String, String) {
    let err = lowered(target)
        .validate_value(&call, Mode::Strict)
        .expect_err("invalid");
    assert_eq!(err.errors.len(), 1, "{}", err.message());
    let e = &err.errors[0];
    (e.code, e.path.clone(), err.message())
}

#[test]
fn a_key_in_two_entries_is_an_error_at_the_second() {
    let call = json!({
        "tags": [{"key": "a", "value": 1}, {"key": "b", "value": 2}, {"key": "a", "value": 3}],
        "note": "1",
        "labels": {"name": "n", "_extra_keys": []}
    });
    for target in [Target::OpenAiStrict, Target::GeminiOpenApi] {
        let (code, path, message) = lowered_error(target, call.clone());
        assert_eq!(code, ErrorCode::DuplicateEntry);
        assert_eq!(path, "/tags/2");
        assert!(message.contains("entries 0 and 2"), "{message}");
        assert!(
            message.contains("send each key in one entry only"),
            "{message}"
        );
    }
}

#[test]
fn an_entry_named_like_a_declared_field_is_an_error() {
    let call = json!({
        "tags": [],
        "note": "1",
        "labels": {"name": "n", "_extra_keys": [{"key": "x", "value": true}, {"key": "name", "value": false}]}
    });
    for target in [Target::OpenAiStrict, Target::GeminiOpenApi] {
        let (code, path, message) = lowered_error(target, call.clone());
        assert_eq!(code, ErrorCode::DuplicateEntry);
        assert_eq!(path, "/labels/_extra_keys/1");
        assert!(message.contains("is a declared property"), "{message}");
    }
}

#[test]
fn json_text_that_is_not_json_is_an_error_at_its_string() {
    let call =
        json!({"tags": [], "note": "{not json", "labels": {"name": "n", "_extra_keys": null}});
    let (code, path, message) = lowered_error(Target::OpenAiStrict, call);
    assert_eq!(code, ErrorCode::InvalidJsonText);
    assert_eq!(path, "/note");
    assert!(message.contains("encode the value as JSON"), "{message}");
}

#[test]
fn lowering_warns_at_the_field_and_a_reserved_name_is_refused() {
    let module = tooldef::compile(LOWERED).expect("compiles").module;
    let out = tooldef::emit::tools(&module, Target::OpenAiStrict, &Default::default())
        .expect("strict mode lowers the tool");
    let lowered: Vec<&str> = out
        .warnings
        .iter()
        .filter(|w| w.code == tooldef::Code::LoweredConstruct)
        .map(|w| &LOWERED[w.span.start..w.span.end])
        .collect();
    assert_eq!(lowered.len(), 3, "{:?}", out.warnings);
    assert!(lowered.iter().any(|s| s.starts_with("tags")), "{lowered:?}");
    assert!(lowered.iter().any(|s| s.starts_with("note")), "{lowered:?}");
    assert!(
        lowered.iter().any(|s| s.starts_with("labels")),
        "{lowered:?}"
    );
    let clash = "/// T.\ntool t {\n  /// A.\n  a: { _extra_keys: string, ...: integer }\n}\n";
    let module = tooldef::compile(clash).expect("compiles").module;
    for target in [Target::OpenAiStrict, Target::GeminiOpenApi] {
        let err = tooldef::emit::tools(&module, target, &Default::default())
            .expect_err("the reserved name is taken");
        assert!(
            err.errors()
                .any(|d| d.code == tooldef::Code::NotRepresentable
                    && d.message.contains("_extra_keys")),
            "{}",
            target.as_str()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// An object of any keys (`{ ... }`) for Gemini's OpenAPI form, which has no OBJECT without
// properties: sent as a map of `any`, one warning at the field

const ANY_OBJECT: &str = r#"
/// Fetch a page.
tool fetch {
  /// Headers.
  headers?: { ... }
  /// Rows.
  rows: { ... }[]
  /// Only `{}`.
  empty?: {}
}
/// Anything goes.
tool anything { ... }
"#;

#[test]
fn an_object_of_any_keys_travels_as_entries_for_gemini_openapi() {
    let fetch = |source: &str| {
        let m = tooldef::compile(source).expect("compiles").module;
        tooldef::emit::tools(&m, Target::GeminiOpenApi, &Default::default())
    };
    // A closed object without fields accepts only `{}`: still refused, at its field.
    let err = fetch(ANY_OBJECT).expect_err("`{}` has no OBJECT in Gemini's schema");
    let at: Vec<&str> = err
        .errors()
        .map(|d| &ANY_OBJECT[d.span.start..d.span.end])
        .collect();
    assert_eq!(at, ["empty"]);
    let source = ANY_OBJECT.replace("  /// Only `{}`.\n  empty?: {}\n", "");
    let out = fetch(&source).expect("open objects are lowered");
    let lowered: Vec<(&str, &str)> = out
        .warnings
        .iter()
        .filter(|w| w.code == tooldef::Code::LoweredConstruct)
        .map(|w| (&source[w.span.start..w.span.end], w.message.as_str()))
        .collect();
    assert_eq!(
        lowered.iter().map(|w| w.0).collect::<Vec<_>>(),
        ["headers", "rows", "anything"],
        "one warning per open object: {lowered:?}"
    );
    assert!(
        lowered
            .iter()
            .all(|w| w.1.contains("each value a string of JSON text")),
        "{lowered:?}"
    );
    let declarations = &out.json[0]["functionDeclarations"];
    let headers = &declarations[0]["parameters"]["properties"]["headers"];
    assert_eq!(headers["type"], "ARRAY");
    assert_eq!(headers["items"]["properties"]["value"]["type"], "STRING");
    assert_eq!(
        declarations[1]["parameters"]["properties"]["_extra_keys"]["type"],
        "ARRAY"
    );

    let module = tooldef::compile(&source).expect("compiles").module;
    let v = Validator::for_target(&module, &module.tools[0], Target::GeminiOpenApi).unwrap();
    assert_eq!(v.reading(), Reading::Lowered);
    let call = json!({
        "headers": [{"key": "Accept", "value": "\"text/html\""}, {"key": "n", "value": "[1, null]"}],
        "rows": [[], [{"key": "id", "value": "7"}]]
    });
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(
        *ok.arguments,
        json!({"headers": {"Accept": "text/html", "n": [1, null]}, "rows": [{}, {"id": 7}]})
    );
    // Strict mode reads only the lowered shape; lax mode also reads the source's.
    let source_shaped = json!({"rows": [{"id": 7}]});
    assert!(v.validate_value(&source_shaped, Mode::Strict).is_err());
    assert!(v.validate_value(&source_shaped, Mode::Lax).is_ok());
    let twice = json!({"rows": [[{"key": "a", "value": "1"}, {"key": "a", "value": "2"}]]});
    let err = v.validate_value(&twice, Mode::Strict).unwrap_err();
    assert_eq!(err.errors[0].code, ErrorCode::DuplicateEntry);
    assert_eq!(err.errors[0].path, "/rows/0/1");

    let v = Validator::for_target(&module, &module.tools[1], Target::GeminiOpenApi).unwrap();
    let call = json!({"_extra_keys": [{"key": "q", "value": "{\"deep\": true}"}]});
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(*ok.arguments, json!({"q": {"deep": true}}));
    assert_eq!(
        *v.validate_value(&json!({}), Mode::Strict)
            .unwrap()
            .arguments,
        json!({})
    );
}

const PLACE: &str = r#"
/// Place something.
tool place {
  /// Where.
  point: [number, number]
  /// A range, then labels.
  range?: [integer, integer?, ...: string]
  /// How loud.
  level?: 1 | 2 | 3 = 1
  /// Whether it is on.
  flag?: true | "auto"
}
"#;

fn place(target: Target) -> Validator {
    let module = tooldef::compile(PLACE).unwrap().module;
    Validator::for_target(&module, &module.tools[0], target).unwrap()
}

#[test]
fn a_tuple_sent_as_an_object_comes_back_as_the_array() {
    let v = place(Target::GeminiOpenApi);
    assert_eq!(v.reading(), Reading::Lowered);
    let call = json!({"point": {"0": 1.5, "1": 2}, "range": {"0": 1, "1": 4, "_rest": ["a", "b"]}});
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(
        *ok.arguments,
        json!({"point": [1.5, 2], "range": [1, 4, "a", "b"], "level": 1})
    );
    let short = json!({"point": {"0": 1, "1": 2}, "range": {"0": 1}});
    let ok = v.validate_value(&short, Mode::Strict).unwrap();
    assert_eq!(ok.arguments["range"], json!([1]));
}

#[test]
fn a_tuple_sent_with_a_position_left_out_before_a_later_one_is_refused() {
    let v = place(Target::GeminiOpenApi);
    let call = json!({"point": {"0": 1, "1": 2}, "range": {"0": 1, "_rest": ["a"]}});
    let err = v.validate_value(&call, Mode::Strict).unwrap_err();
    assert_eq!(err.errors[0].code, ErrorCode::MissingField);
    assert_eq!(err.errors[0].path, "/range/1");
    assert!(
        err.message().contains("`_rest` is given"),
        "{}",
        err.message()
    );
    // The array itself is not the shape this target showed.
    let array = json!({"point": [1, 2]});
    assert!(!v.is_valid(&array, Mode::Strict));
}

#[test]
fn strict_mode_sends_every_position_and_null_for_one_left_out() {
    let v = place(Target::OpenAiStrict);
    assert_eq!(v.reading(), Reading::NullForAbsent);
    let call = json!({
        "point": {"0": 1, "1": 2},
        "range": {"0": 1, "1": null, "_rest": null},
        "level": 2,
        "flag": null
    });
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(
        *ok.arguments,
        json!({"point": [1, 2], "range": [1], "level": 2})
    );
}

#[test]
fn gemini_reads_the_spelling_of_a_value_that_is_not_a_string_as_the_value() {
    let v = place(Target::GeminiOpenApi);
    let call = json!({"point": {"0": 1, "1": 2}, "level": "3", "flag": "true"});
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(
        *ok.arguments,
        json!({"point": [1, 2], "level": 3, "flag": true})
    );
    let auto = json!({"point": {"0": 1, "1": 2}, "flag": "auto"});
    let ok = v.validate_value(&auto, Mode::Strict).unwrap();
    assert_eq!(ok.arguments["flag"], json!("auto"));
    // The value itself is not what Gemini was shown.
    let bare = json!({"point": {"0": 1, "1": 2}, "level": 3});
    assert!(!v.is_valid(&bare, Mode::Strict));
    assert!(!v.is_valid(
        &json!({"point": {"0": 1, "1": 2}, "level": "4"}),
        Mode::Strict
    ));
}

#[test]
fn a_string_for_an_integer_enum_is_still_refused_for_every_other_target() {
    for target in [
        Target::JsonSchema,
        Target::OpenAi,
        Target::OpenAiStrict,
        Target::Anthropic,
        Target::Gemini,
        Target::Mcp,
    ] {
        let v = place(target);
        let call = json!({"point": [1, 2], "level": "3"});
        let shaped = json!({"point": {"0": 1, "1": 2}, "level": "3", "range": null, "flag": null});
        assert!(!v.is_valid(&call, Mode::Strict), "{target:?}");
        assert!(!v.is_valid(&shaped, Mode::Strict), "{target:?}");
    }
}

#[test]
fn an_enum_whose_values_are_spelled_alike_is_folded_as_before() {
    let source = r#"
/// Pick.
tool pick {
  /// Which.
  which: 1 | "1"
}
"#;
    let module = tooldef::compile(source).unwrap().module;
    let emitted = tooldef::emit::tool(
        &module,
        &module.tools[0],
        Target::GeminiOpenApi,
        &tooldef::emit::Options::default(),
    )
    .unwrap();
    let codes: Vec<String> = emitted
        .warnings
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    assert!(
        codes.contains(&"folded-constraint".to_string()),
        "{codes:?}"
    );
    let v = Validator::for_target(&module, &module.tools[0], Target::GeminiOpenApi).unwrap();
    assert!(v.is_valid(&json!({"which": 1}), Mode::Strict));
}

#[test]
fn the_anthropic_strict_reading_keeps_optional_fields_optional() {
    // Nothing of WEATHER is lowered: the source's reading, where `null` is not "absent".
    let v = validator(Target::AnthropicStrict);
    assert_eq!(v.reading(), Reading::Source);
    assert!(v.is_valid(&json!({"city": "Oslo"}), Mode::Strict));
    assert!(!v.is_valid(&json!({"city": "Oslo", "days": null}), Mode::Strict));

    let source = r#"
/// Send.
tool send {
  city: string
  days?: integer @min(1) = 1
  headers?: map<string>
  meta?: { known: string, ... }
  pair?: [integer, string?]
}
"#;
    let module = tooldef::compile(source).unwrap().module;
    let v = Validator::for_target(&module, &module.tools[0], Target::AnthropicStrict).unwrap();
    assert_eq!(v.reading(), Reading::Closed);
    // An optional field left out is absent, and its default fills in.
    let bare = json!({"city": "Oslo"});
    let ok = v.validate_value(&bare, Mode::Strict).unwrap();
    assert_eq!(*ok.arguments, json!({"city": "Oslo", "days": 1}));
    // Maps, open objects and tuples come in their lowered shape and go back to the source's.
    let call = json!({
        "city": "Oslo",
        "headers": [{"key": "a", "value": "b"}],
        "meta": {"known": "k", "_extra_keys": [{"key": "x", "value": "[1, 2]"}]},
        "pair": {"0": 3}
    });
    let ok = v.validate_value(&call, Mode::Strict).unwrap();
    assert_eq!(
        *ok.arguments,
        json!({"city": "Oslo", "days": 1, "headers": {"a": "b"}, "meta": {"known": "k", "x": [1, 2]}, "pair": [3]})
    );
    // The source's shape is not what the model was shown, and `null` is not "absent".
    assert!(!v.is_valid(
        &json!({"city": "Oslo", "headers": {"a": "b"}}),
        Mode::Strict
    ));
    assert!(!v.is_valid(&json!({"city": "Oslo", "days": null}), Mode::Strict));
    // What the target folded is still enforced.
    let err = v
        .validate_value(&json!({"city": "Oslo", "days": 0}), Mode::Strict)
        .unwrap_err();
    assert_eq!(err.errors[0].path, "/days");
}
