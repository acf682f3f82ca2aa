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
