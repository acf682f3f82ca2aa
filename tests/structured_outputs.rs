//! Structured outputs: each provider's response-format block for every named type and tool
//! output of the examples, its shape, the agreement of its schema with the answer validator, and
//! answers captured in each provider's shape read back. Gemini's blocks are also checked against
//! google-genai's `GenerateContentConfig` (skipped with a notice when the package is missing,
//! except when `CI=true`).

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use tooldef::emit::{Options, Target, RESPONSE_TARGETS};
use tooldef::validate::Mode;
use tooldef::{Answer, Toolset};

fn examples() -> Vec<(String, Toolset)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut out: Vec<(String, Toolset)> = std::fs::read_dir(dir)
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tool"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (
                name,
                Toolset::from_files([&p]).expect("an example compiles"),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The schema inside a block.
fn schema_of(block: &Value, target: Target) -> &Value {
    match target {
        Target::OpenAi => &block["json_schema"]["schema"],
        Target::OpenAiResponses => &block["format"]["schema"],
        Target::Anthropic => &block["schema"],
        _ => &block["responseJsonSchema"],
    }
}

/// Every block of every example, with the answer it is for.
fn blocks() -> Vec<(String, Target, Value)> {
    let mut out = Vec::new();
    for (file, set) in examples() {
        let mut answers: Vec<(String, Answer)> = Vec::new();
        let names: Vec<String> = set
            .tools()
            .flat_map(|(m, _)| m.types.iter().map(|t| t.name.clone()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let outputs: Vec<String> = set
            .tools()
            .filter(|(_, t)| t.output.is_some())
            .map(|(_, t)| t.name.clone())
            .collect();
        for n in &names {
            answers.push((format!("{file} type {n}"), Answer::Type(n)));
        }
        for n in &outputs {
            answers.push((format!("{file} output of {n}"), Answer::Output(n)));
        }
        for (label, answer) in answers {
            for &target in RESPONSE_TARGETS {
                if let Ok(e) = set.response_format(answer, target, &Options::default()) {
                    out.push((label.clone(), target, e.json));
                }
            }
        }
    }
    out
}

#[test]
fn every_block_has_its_provider_shape() {
    let all = blocks();
    let mut per_target = std::collections::BTreeMap::new();
    for (label, target, block) in &all {
        *per_target.entry(target.as_str()).or_insert(0) += 1;
        match target {
            Target::OpenAi => {
                assert_eq!(block["type"], "json_schema", "{label}");
                assert_eq!(block["json_schema"]["strict"], true, "{label}");
                assert!(block["json_schema"]["name"].is_string(), "{label}");
            }
            Target::OpenAiResponses => {
                assert_eq!(block["format"]["type"], "json_schema", "{label}");
                assert_eq!(block["format"]["strict"], true, "{label}");
            }
            Target::Anthropic => assert_eq!(block["type"], "json_schema", "{label}"),
            _ => assert_eq!(block["responseMimeType"], "application/json", "{label}"),
        }
        let schema = schema_of(block, *target);
        assert!(schema.get("$schema").is_none(), "{label}");
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(schema)
            .unwrap_or_else(|e| panic!("{label} {}: {e}", target.as_str()));
        if matches!(target, Target::OpenAi | Target::OpenAiResponses) {
            // OpenAI strict mode: an object root, every property required, no other keys.
            assert_eq!(schema["type"], "object", "{label}");
            let props = schema["properties"].as_object().expect("properties");
            let required: Vec<&str> = schema["required"]
                .as_array()
                .expect("required")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(required.len(), props.len(), "{label}");
            assert_eq!(schema["additionalProperties"], false, "{label}");
        }
    }
    println!("blocks per target: {per_target:?}");
    for t in ["openai", "openai-responses", "anthropic", "gemini"] {
        assert!(
            per_target.get(t).copied().unwrap_or(0) >= 5,
            "{t}: {per_target:?}"
        );
    }
}

#[test]
fn answers_captured_in_each_shape_read_back() {
    let set = Toolset::from_files([concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/calendar.tool"
    )])
    .expect("compiles");
    let place = Answer::Type("Place");
    // OpenAI: every key, `null` for an absent one; read in the type's own shape.
    let openai = set
        .answer_validator_for(place, Target::OpenAi)
        .expect("validator");
    let content = r#"{"name": "Room 1", "lat": null}"#;
    let out = openai.validate_str(content, Mode::Strict).expect("valid");
    assert_eq!(*out.arguments, json!({"name": "Room 1"}));
    // The same answer for a provider that was shown the plain schema is refused in strict
    // mode, and read with `null` as absent in lax mode.
    let plain = set.answer_validator(place).expect("validator");
    assert!(plain.validate_str(content, Mode::Strict).is_err());
    assert!(plain.validate_str(content, Mode::Lax).is_ok());
    // Anthropic and Gemini: the text of the answer, almost-JSON repaired in lax mode only.
    let fenced = "```json\n{\"name\": \"Room 1\", \"lat\": 48.8,}\n```";
    let out = plain.validate_str(fenced, Mode::Lax).expect("repaired");
    assert_eq!(out.repairs.len(), 2);
    assert!(plain.validate_str(fenced, Mode::Strict).is_err());
    // A wrong answer gets a message for the model.
    let e = plain
        .validate_str(r#"{"name": "", "lat": 91}"#, Mode::Strict)
        .expect_err("invalid");
    assert_eq!(e.errors.len(), 2, "{}", e.message());
    // Worded for a value, not for a tool call, with the type spelled out.
    let message = e.message();
    assert!(
        message.starts_with("The value for `Place` is invalid (2 problems)"),
        "{message}"
    );
    assert!(message.contains("send the whole value again"), "{message}");
    assert!(
        message.contains("\nwhere Place = {name: string"),
        "{message}"
    );
    // A tool's output type.
    let created = set
        .answer_validator(Answer::Output("create_event"))
        .expect("validator");
    assert!(created
        .validate_str(
            r#"{"id": "123e4567-e89b-12d3-a456-426614174000", "created": true}"#,
            Mode::Strict
        )
        .is_ok());
    // Unknown names.
    let e = set
        .answer_validator(Answer::Type("Plac"))
        .expect_err("unknown");
    assert!(e.to_string().contains("did you mean `Place`"), "{e}");
    assert!(set.answer_validator(Answer::Output("list_events")).is_ok());
}

/// OpenAI's blocks read as async-openai's request types (Chat's `ResponseFormat`, Responses'
/// `ResponseTextParam`) and write back unchanged: no key is unknown to them or dropped.
#[test]
fn openai_blocks_read_as_async_openai_types() {
    let mut checked = 0;
    for (label, target, block) in blocks() {
        let back = match target {
            Target::OpenAi => serde_json::to_value(
                serde_json::from_value::<async_openai::types::chat::ResponseFormat>(block.clone())
                    .unwrap_or_else(|e| panic!("{label}: {e}")),
            ),
            Target::OpenAiResponses => serde_json::to_value(
                serde_json::from_value::<async_openai::types::responses::ResponseTextParam>(
                    block.clone(),
                )
                .unwrap_or_else(|e| panic!("{label}: {e}")),
            ),
            _ => continue,
        }
        .expect("serializes");
        assert_eq!(back, block, "{label}");
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn gemini_blocks_validate_with_google_genai() {
    let probe = Command::new("python3")
        .args(["-c", "import google.genai"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("google-genai is missing; CI must run this check");
        }
        eprintln!(
            "notice: google-genai is not installed; the GenerateContentConfig check is skipped"
        );
        return;
    }
    let blocks: Vec<Value> = blocks()
        .into_iter()
        .filter(|(_, t, _)| *t == Target::Gemini)
        .map(|(label, _, b)| json!({"name": label, "config": b}))
        .collect();
    let script = r#"
import json, sys
from google.genai import types
problems = []
cases = json.load(sys.stdin)
for case in cases:
    try:
        config = types.GenerateContentConfig.model_validate(case["config"])
    except Exception as e:
        problems.append(f"{case['name']}: {e}")
        continue
    back = config.model_dump(mode="json", exclude_none=True, by_alias=True)
    if back.get("responseJsonSchema") != case["config"]["responseJsonSchema"]:
        problems.append(f"{case['name']}: the schema did not survive the model")
print(len(cases), "checked")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(Value::Array(blocks).to_string().as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("finished");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    println!("{text}");
}
