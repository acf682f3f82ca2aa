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
        Target::GeminiOpenApi => &block["responseSchema"],
        _ => &block["responseJsonSchema"],
    }
}

/// The names of a set's named types and enums, sorted.
fn type_names(set: &Toolset) -> std::collections::BTreeSet<String> {
    set.tools()
        .flat_map(|(m, _)| m.types.iter().map(|t| t.name.clone()))
        .collect()
}

/// Every block of every example, with the answer it is for.
fn blocks() -> Vec<(String, Target, Value)> {
    let mut out = Vec::new();
    for (file, set) in examples() {
        let mut answers: Vec<(String, Answer)> = Vec::new();
        let names = type_names(&set);
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
        if *target == Target::GeminiOpenApi {
            // Gemini's OpenAPI `Schema`, not JSON Schema: google-genai checks it below.
            assert_eq!(schema["type"], "OBJECT", "{label}");
            continue;
        }
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
    for t in [
        "openai",
        "openai-responses",
        "anthropic",
        "gemini",
        "gemini-openapi",
    ] {
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
        .filter(|(_, t, _)| matches!(t, Target::Gemini | Target::GeminiOpenApi))
        .map(|(label, t, b)| json!({"name": format!("{label} {}", t.as_str()), "config": b}))
        .chain(forced_tools().into_iter().filter_map(|(label, t, b)| {
            matches!(t, Target::Gemini | Target::GeminiOpenApi).then(
                || json!({"name": format!("{label} via a tool, {}", t.as_str()), "config": b}),
            )
        }))
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
    for key in case["config"]:
        if key != "responseMimeType" and back.get(key) != case["config"][key]:
            problems.append(f"{case['name']}: {key} did not survive the model: {back.get(key)}")
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

/// The request fields of every example's answers given through a forced tool, for every
/// target that has a tool choice.
fn forced_tools() -> Vec<(String, Target, Value)> {
    let mut out = Vec::new();
    for (file, set) in examples() {
        for n in &type_names(&set) {
            for target in [
                Target::OpenAi,
                Target::OpenAiStrict,
                Target::OpenAiResponses,
                Target::Anthropic,
                Target::Gemini,
                Target::GeminiOpenApi,
            ] {
                if let Ok(e) = set.response_tool(Answer::Type(n), target, &Options::default()) {
                    out.push((format!("{file} type {n}"), target, e.json));
                }
            }
        }
    }
    out
}

/// Structured output through a forced tool: one tool, the choice naming it, in each target's
/// shape (OpenAI's read by async-openai's request types; Gemini's by google-genai above), and
/// the answer read back from the call in the shape the target showed.
#[test]
fn forced_tools_have_each_providers_shape_and_read_back() {
    let all = forced_tools();
    let mut per_target = std::collections::BTreeMap::new();
    for (label, target, fields) in &all {
        *per_target.entry(target.as_str()).or_insert(0) += 1;
        let choice = &fields[tooldef::emit::tool_choice_field(*target)];
        let tools = &fields["tools"];
        match target {
            Target::OpenAi | Target::OpenAiStrict => {
                let tool: async_openai::types::chat::ChatCompletionTools =
                    serde_json::from_value(tools[0].clone())
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(
                    serde_json::to_value(tool).expect("serializes"),
                    tools[0],
                    "{label}"
                );
                let choice: async_openai::types::chat::ChatCompletionToolChoiceOption =
                    serde_json::from_value(choice.clone())
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(
                    serde_json::to_value(choice).expect("serializes"),
                    fields["tool_choice"],
                    "{label}"
                );
            }
            Target::OpenAiResponses => {
                let choice: async_openai::types::responses::ToolChoiceParam =
                    serde_json::from_value(choice.clone())
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(
                    serde_json::to_value(choice).expect("serializes"),
                    fields["tool_choice"],
                    "{label}"
                );
            }
            Target::Anthropic => {
                assert_eq!(choice["type"], "tool", "{label}");
                assert_eq!(choice["name"], tools[0]["name"], "{label}");
            }
            _ => {
                let name = &tools[0]["functionDeclarations"][0]["name"];
                assert_eq!(
                    choice["functionCallingConfig"]["allowedFunctionNames"][0], *name,
                    "{label}"
                );
            }
        }
    }
    println!("forced tools per target: {per_target:?}");
    assert_eq!(per_target.len(), 6, "{per_target:?}");

    // The answer comes back as the call's arguments, in the shape each target showed: OpenAI
    // strict with every key (`null` for absent), the others as they are.
    let set = Toolset::from_files([concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/calendar.tool"
    )])
    .expect("compiles");
    let place = Answer::Type("Place");
    let strict = set
        .answer_tool_validator(place, Target::OpenAiStrict)
        .expect("validator");
    let out = strict
        .validate_str(r#"{"name": "Room 1", "lat": null}"#, Mode::Strict)
        .expect("valid");
    assert_eq!(*out.arguments, json!({"name": "Room 1"}));
    let plain = set
        .answer_tool_validator(place, Target::Anthropic)
        .expect("validator");
    assert!(plain
        .validate_str(r#"{"name": "Room 1", "lat": null}"#, Mode::Strict)
        .is_err());
    assert_eq!(set.answer_tool_name(place).expect("named"), "Place");
    assert_eq!(
        set.answer_tool_name(Answer::Output("create_event"))
            .expect("named"),
        "create_event_output"
    );
    // Not an object, or a target without tool choice: errors that say so.
    let e = set
        .response_tool(
            Answer::Type("Priority"),
            Target::Anthropic,
            &Options::default(),
        )
        .expect_err("an enum is not an object");
    assert!(e.to_string().contains("not an object"), "{e}");
    let e = set
        .response_tool(place, Target::Mcp, &Options::default())
        .expect_err("no tool choice");
    assert!(e.to_string().contains("no tool choice"), "{e}");
}

/// Gemini's OpenAPI form reads an answer back as its tool calls are: a map sent as key/value
/// entries comes back as the map.
#[test]
fn gemini_openapi_answers_are_read_back_from_the_lowered_shape() {
    let set = Toolset::from_source(
        "/// An answer.\ntype Forecast { city: string, temps: map<number> }\ntype Cities = string[]",
    )
    .expect("compiles");
    let answer = Answer::Type("Forecast");
    let block = set
        .response_format(answer, Target::GeminiOpenApi, &Options::default())
        .expect("emitted");
    assert_eq!(
        block.json["responseSchema"]["properties"]["temps"]["type"],
        "ARRAY"
    );
    assert_eq!(block.warnings.len(), 1, "{:?}", block.warnings);
    let lowered = r#"{"city": "Oslo", "temps": [{"key": "mon", "value": 3}]}"#;
    let read = set
        .answer_validator_for(answer, Target::GeminiOpenApi)
        .expect("validator");
    let out = read.validate_str(lowered, Mode::Strict).expect("valid");
    assert_eq!(*out.arguments, json!({"city": "Oslo", "temps": {"mon": 3}}));
    // The same text is wrong for the JSON Schema form, which showed the map as an object.
    let json_form = set
        .answer_validator_for(answer, Target::Gemini)
        .expect("validator");
    assert!(json_form.validate_str(lowered, Mode::Strict).is_err());
    // The OpenAPI form needs an object root to read the answer back.
    let e = set
        .response_format(
            Answer::Type("Cities"),
            Target::GeminiOpenApi,
            &Options::default(),
        )
        .expect_err("not an object");
    assert!(e.to_string().contains("need an object at the root"), "{e}");
}
