//! Closing the loop: every call of a provider's response run through the runtime, and the
//! message(s) the provider expects next, in its exact shape, checked against the provider's own
//! types (async-openai here; Anthropic, google-genai and MCP by `tests/turn_sdk.py`).

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::executor::block_on;
use serde_json::{json, Value};
use tooldef::emit::{Target, ToolChoice};
use tooldef::envelope::Provider;
use tooldef::runtime::{Approval, Approver, Handler, RunOptions, Runtime, ToolError};
use tooldef::Toolset;

const TOOLS: &str = r#"
/// Add two numbers.
tool add -> { sum: number } { a: number, b?: number = 1 }

/// Say hello.
tool greet { name: string @min_length(1) }

/// Delete a file.
@requires_approval @destructive
tool delete_file { path: string }

/// Always fails.
@on_error(suppress)
tool broken {}
"#;

/// A runtime with a handler for every tool; the count of handler runs of `delete_file`.
fn runtime(approve: bool) -> (Runtime, Arc<AtomicUsize>) {
    let deleted = Arc::new(AtomicUsize::new(0));
    let mut rt = Runtime::new(Toolset::from_source(TOOLS).unwrap());
    rt.register(
        "add",
        Handler::sync(|a| {
            Ok(json!({"sum": a["a"].as_f64().unwrap_or(0.0) + a["b"].as_f64().unwrap_or(0.0)}))
        }),
    )
    .unwrap();
    rt.register(
        "greet",
        Handler::sync(|a| {
            Ok(json!(format!(
                "Hello, {}!",
                a["name"].as_str().unwrap_or("")
            )))
        }),
    )
    .unwrap();
    let count = Arc::clone(&deleted);
    rt.register(
        "delete_file",
        Handler::sync(move |_| {
            count.fetch_add(1, Ordering::SeqCst);
            Ok(json!("deleted"))
        }),
    )
    .unwrap();
    rt.register(
        "broken",
        Handler::sync(|_| Err(ToolError::new("disk on fire"))),
    )
    .unwrap();
    let rt = if approve {
        rt.with_approver(Approver::sync(|_| Approval::Approve))
    } else {
        rt
    };
    (rt, deleted)
}

/// The same five calls (a good one, an invalid one, one that needs approval, one that fails,
/// one to an unknown tool) in each provider's response shape.
fn response(provider: Provider) -> Value {
    let calls: [(&str, &str, Value); 6] = [
        ("c1", "add", json!({"a": 2})),
        ("c2", "greet", json!({"name": ""})),
        ("c3", "delete_file", json!({"path": "/tmp/x"})),
        ("c4", "broken", json!({})),
        ("c5", "ad", json!({"a": 1})),
        ("c6", "greet", json!({"name": "Ada"})),
    ];
    match provider {
        Provider::OpenAi => json!({"choices": [{"message": {"role": "assistant", "tool_calls":
            calls.iter().map(|(id, name, args)| json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}})).collect::<Vec<_>>()}}]}),
        // The Responses API shows tools strict: every key is sent, `null` for what is absent.
        Provider::OpenAiResponses => json!({"output": calls.iter().map(|(id, name, args)| {
            let mut args = args.clone();
            if *name == "add" {
                args["b"] = Value::Null;
            }
            json!({"type": "function_call", "call_id": id, "name": name,
                "arguments": args.to_string()})
        }).collect::<Vec<_>>()}),
        Provider::Anthropic => json!({"role": "assistant", "content": calls.iter().map(
            |(id, name, args)| json!({"type": "tool_use", "id": id, "name": name, "input": args}))
            .collect::<Vec<_>>()}),
        Provider::Gemini => json!({"candidates": [{"content": {"role": "model", "parts":
            calls.iter().map(|(id, name, args)| json!({"functionCall":
                {"id": id, "name": name, "args": args}})).collect::<Vec<_>>()}}]}),
        Provider::Mcp => json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 2}}}),
    }
}

#[test]
fn every_call_is_run_and_answered_in_call_order() {
    let (rt, deleted) = runtime(false);
    for &provider in Provider::ALL {
        if provider == Provider::Mcp {
            continue;
        }
        let turn = block_on(rt.run_response(provider, &response(provider), &RunOptions::default()))
            .unwrap_or_else(|e| panic!("{provider}: {e}"));
        let ok: Vec<bool> = turn.calls.iter().map(|c| c.succeeded()).collect();
        assert_eq!(ok, [true, false, false, false, false, true], "{provider}");
        // Unapproved, the handler never ran.
        assert_eq!(deleted.load(Ordering::SeqCst), 0, "{provider}");
        let replies: Vec<&Value> = turn.calls.iter().map(|c| &c.reply).collect();
        let texts: Vec<String> = replies.iter().map(|r| r.to_string()).collect();
        assert!(texts[2].contains("approv"), "{provider}: {}", texts[2]);
        assert!(
            texts[3].contains("disk on fire"),
            "{provider}: {}",
            texts[3]
        );
        assert!(
            texts[4].contains("did you mean `add`"),
            "{provider}: {}",
            texts[4]
        );
        match provider {
            Provider::Anthropic => {
                assert_eq!(turn.messages.len(), 1);
                let m = &turn.messages[0];
                assert_eq!(m["role"], "user");
                let ids: Vec<&str> = m["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b["tool_use_id"].as_str().unwrap())
                    .collect();
                assert_eq!(ids, ["c1", "c2", "c3", "c4", "c5", "c6"]);
                let errors: Vec<bool> = m["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b["is_error"] == true)
                    .collect();
                assert_eq!(errors, [false, true, true, true, true, false]);
                assert_eq!(m["content"][0]["content"], r#"{"sum":3.0}"#);
            }
            Provider::Gemini => {
                assert_eq!(turn.messages.len(), 1);
                let parts = turn.messages[0]["parts"].as_array().unwrap();
                assert_eq!(parts.len(), 6);
                assert_eq!(parts[0]["functionResponse"]["id"], "c1");
                assert_eq!(
                    parts[0]["functionResponse"]["response"]["output"],
                    json!({"sum": 3.0})
                );
                assert!(parts[1]["functionResponse"]["response"]["error"].is_string());
            }
            Provider::OpenAi => {
                assert_eq!(turn.messages.len(), 6);
                for (m, id) in turn
                    .messages
                    .iter()
                    .zip(["c1", "c2", "c3", "c4", "c5", "c6"])
                {
                    let read: async_openai::types::chat::ChatCompletionRequestMessage =
                        serde_json::from_value(m.clone()).unwrap_or_else(|e| panic!("{e}: {m}"));
                    match read {
                        async_openai::types::chat::ChatCompletionRequestMessage::Tool(t) => {
                            assert_eq!(t.tool_call_id, id)
                        }
                        other => panic!("not a tool message: {other:?}"),
                    }
                }
            }
            Provider::OpenAiResponses => {
                assert_eq!(turn.messages.len(), 6);
                for m in &turn.messages {
                    let read: async_openai::types::responses::Item =
                        serde_json::from_value(m.clone()).unwrap_or_else(|e| panic!("{e}: {m}"));
                    assert!(
                        matches!(
                            read,
                            async_openai::types::responses::Item::FunctionCallOutput(_)
                        ),
                        "{m}"
                    );
                }
            }
            Provider::Mcp => unreachable!(),
        }
    }
}

#[test]
fn an_approved_call_runs_once_and_mcp_carries_structured_content() {
    let (rt, deleted) = runtime(true);
    let turn = block_on(rt.run_response(
        Provider::Anthropic,
        &response(Provider::Anthropic),
        &RunOptions::default(),
    ))
    .unwrap();
    assert!(turn.calls[2].succeeded());
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    let turn = block_on(rt.run_response(
        Provider::Mcp,
        &response(Provider::Mcp),
        &RunOptions::default(),
    ))
    .unwrap();
    assert_eq!(turn.messages.len(), 1);
    let m = &turn.messages[0];
    assert_eq!(m["id"], 7);
    assert_eq!(m["result"]["structuredContent"], json!({"sum": 3.0}));
    assert_eq!(m["result"]["isError"], false);
}

fn python_with_sdks() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import anthropic, mcp.types, google.genai"])
        .output()
        .map_err(|e| format!("python3 cannot run: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err("the Python packages anthropic, mcp and google-genai are not all installed".into())
    }
}

#[test]
fn the_messages_fit_the_provider_sdks_types() {
    if let Err(why) = python_with_sdks() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}; CI must run the SDK check");
        }
        eprintln!("notice: {why}; the SDK check is skipped");
        return;
    }
    let (rt, _) = runtime(false);
    let mut cases = serde_json::Map::new();
    for (key, provider) in [
        ("anthropic", Provider::Anthropic),
        ("gemini", Provider::Gemini),
        ("mcp", Provider::Mcp),
    ] {
        let turn = block_on(rt.run_response(provider, &response(provider), &RunOptions::default()))
            .unwrap();
        cases.insert(key.into(), Value::Array(turn.messages));
    }
    let tools = rt.toolset();
    for (key, target) in [
        ("anthropic_tool_choice", Target::Anthropic),
        ("gemini_tool_config", Target::Gemini),
    ] {
        let choices: Vec<Value> = CHOICES
            .iter()
            .map(|c| tools.tool_choice(target, *c).unwrap())
            .collect();
        cases.insert(key.into(), Value::Array(choices));
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/turn_sdk.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(Value::Object(cases).to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("11 messages fit"));
}

/// Every kind of tool choice.
const CHOICES: [ToolChoice<'static>; 4] = [
    ToolChoice::Auto,
    ToolChoice::None,
    ToolChoice::Required,
    ToolChoice::Tool("add"),
];

/// The tool choice in each provider's form: OpenAI's read by async-openai's own types; a tool
/// the set lacks, and a target without tool choice, are errors.
#[test]
fn tool_choice_takes_each_providers_form() {
    let tools = Toolset::from_source(TOOLS).unwrap();
    for choice in CHOICES {
        let chat = tools.tool_choice(Target::OpenAiStrict, choice).unwrap();
        serde_json::from_value::<async_openai::types::chat::ChatCompletionToolChoiceOption>(
            chat.clone(),
        )
        .unwrap_or_else(|e| panic!("{e}: {chat}"));
        let responses = tools.tool_choice(Target::OpenAiResponses, choice).unwrap();
        serde_json::from_value::<async_openai::types::responses::ToolChoiceParam>(
            responses.clone(),
        )
        .unwrap_or_else(|e| panic!("{e}: {responses}"));
    }
    assert_eq!(
        tools
            .tool_choice(Target::Anthropic, ToolChoice::Tool("add"))
            .unwrap(),
        json!({"type": "tool", "name": "add"})
    );
    assert_eq!(
        tools
            .tool_choice(Target::Anthropic, ToolChoice::Required)
            .unwrap(),
        json!({"type": "any"})
    );
    assert_eq!(
        tools
            .tool_choice(Target::Gemini, ToolChoice::Tool("add"))
            .unwrap(),
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["add"]}})
    );
    let unknown = tools
        .tool_choice(Target::OpenAi, ToolChoice::Tool("ad"))
        .unwrap_err();
    assert!(
        unknown.to_string().contains("did you mean `add`"),
        "{unknown}"
    );
    assert!(tools.tool_choice(Target::Mcp, ToolChoice::Auto).is_err());
}
