//! Unions told apart by a field (`type: "section"`): the validator reports the problems inside
//! the member the tag picks, and lists the tags when the tag is unknown; the verdicts agree with
//! the jsonschema crate on the emitted schema, which keeps `anyOf` and each member's `const`.

use serde_json::{json, Value};
use tooldef::validate::{ErrorCode, Mode, Validator};

const BLOCKS: &str = r#"
/// A section of text.
type Section {
  type: "section"
  text: string
}

/// A divider.
type Divider { type: "divider" }

/// An image.
type Image {
  type: "image"
  url: string
  alt?: string
}

/// Posts blocks.
tool post {
  blocks: (Section | Divider | Image | { type: "quote", by?: string, text: string })[]
}
"#;

fn validator() -> (tooldef::Module, Validator) {
    let module = tooldef::compile(BLOCKS).expect("compiles").module;
    let tool = module.tool("post").expect("a tool").clone();
    let validator = Validator::new(&module, &tool).expect("a validator");
    (module, validator)
}

/// The (path, code) of every problem, and the message.
fn problems(v: &Validator, args: &Value, mode: Mode) -> (Vec<(String, ErrorCode)>, String) {
    match v.validate_value(args, mode) {
        Ok(_) => (Vec::new(), String::new()),
        Err(e) => (
            e.errors.iter().map(|p| (p.path.clone(), p.code)).collect(),
            e.message(),
        ),
    }
}

#[test]
fn the_tag_picks_the_member_whose_problems_are_reported() {
    let (_, v) = validator();
    for mode in [Mode::Strict, Mode::Lax] {
        let args = json!({"blocks": [
            {"type": "section", "txt": "hi"},
            {"type": "quote", "by": [1], "text": "x"},
            {"type": "divider"},
        ]});
        let (got, message) = problems(&v, &args, mode);
        assert_eq!(
            got,
            [
                ("/blocks/0/text".to_string(), ErrorCode::MissingField),
                ("/blocks/0/txt".to_string(), ErrorCode::UnknownKey),
                ("/blocks/1/by".to_string(), ErrorCode::WrongType),
            ],
            "{message}"
        );
        assert!(message.contains("did you mean `text`?"), "{message}");
        assert!(
            !message.contains("got object"),
            "no union-level complaint: {message}"
        );
    }
}

#[test]
fn an_unknown_or_missing_tag_lists_the_tags() {
    let (_, v) = validator();
    let (got, message) = problems(
        &v,
        &json!({"blocks": [{"type": "divder"}, {"text": "x"}]}),
        Mode::Strict,
    );
    assert_eq!(
        got,
        [
            ("/blocks/0/type".to_string(), ErrorCode::NotAllowed),
            ("/blocks/1/type".to_string(), ErrorCode::MissingField),
        ],
        "{message}"
    );
    assert!(
        message.contains(r#"must be one of "section", "divider", "image", "quote""#),
        "{message}"
    );
    assert!(message.contains(r#"did you mean "divider"?"#), "{message}");
    assert!(
        message.contains(
            r#"missing required field `type` of type `"section" | "divider" | "image" | "quote"`"#
        ),
        "{message}"
    );
}

#[test]
fn verdicts_agree_with_jsonschema_on_the_emitted_schema() {
    let (module, v) = validator();
    let tool = module.tool("post").expect("a tool");
    let schema = tooldef::emit::parameters(&module, tool);
    let text = schema.to_string();
    assert!(
        text.contains("anyOf") && text.contains(r#""const":"section""#),
        "{text}"
    );
    let reference = jsonschema::validator_for(&schema).expect("a schema");
    let cases = [
        json!({"blocks": []}),
        json!({"blocks": [{"type": "section", "text": "a"}, {"type": "divider"}]}),
        json!({"blocks": [{"type": "image", "url": "u", "alt": "a"}]}),
        json!({"blocks": [{"type": "quote", "text": "q"}]}),
        json!({"blocks": [{"type": "section"}]}),
        json!({"blocks": [{"type": "divider", "text": "a"}]}),
        json!({"blocks": [{"type": "nope"}]}),
        json!({"blocks": [{"text": "a"}]}),
        json!({"blocks": [{"type": 1, "text": "a"}]}),
        json!({"blocks": ["section"]}),
    ];
    for case in cases {
        assert_eq!(
            v.is_valid(&case, Mode::Strict),
            reference.is_valid(&case),
            "{case}"
        );
    }
}
