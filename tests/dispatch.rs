//! Dispatching provider responses: golden tests on responses shaped as each provider documents
//! them, malformed envelopes, the target-aware reading, and (on the BFCL corpus) the property
//! that a call wrapped in any provider's envelope gets the verdict `validate` gives.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tooldef::emit::Target;
use tooldef::envelope::{CallArguments, Provider, ToolCall};
use tooldef::validate::Mode;
use tooldef::{DispatchError, DispatchOptions, Toolset, Verdict};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/envelopes")
}

fn weather() -> Toolset {
    Toolset::from_files([fixtures().join("weather.tool")]).unwrap()
}

fn response(provider: Provider) -> Value {
    let path = fixtures().join(format!("{}.json", provider.as_str()));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Each provider's documented response shape: the calls in order, their verdicts, and the
/// replies for the bad ones, as one snapshot per provider.
#[test]
fn golden_responses_of_every_provider() {
    let tools = weather();
    for &provider in Provider::ALL {
        let out = tools
            .dispatch(provider, &response(provider), &DispatchOptions::default())
            .unwrap();
        insta::assert_snapshot!(
            format!("dispatch_{}", provider.as_str()),
            serde_json::to_string_pretty(&out.to_json()).unwrap()
        );
    }
}

#[test]
fn every_golden_response_has_good_and_bad_calls() {
    let tools = weather();
    let expected: &[(Provider, &[bool])] = &[
        (Provider::OpenAi, &[true, false, false]),
        (Provider::OpenAiResponses, &[true, false, false]),
        (Provider::Anthropic, &[true, false]),
        (Provider::Gemini, &[true, false, false]),
        (Provider::Mcp, &[false]),
    ];
    for (provider, verdicts) in expected {
        let out = tools
            .dispatch(*provider, &response(*provider), &DispatchOptions::default())
            .unwrap();
        let got: Vec<bool> = out.calls.iter().map(|c| c.is_valid()).collect();
        assert_eq!(&got, verdicts, "{provider}");
        assert_eq!(
            out.replies.len(),
            verdicts.iter().filter(|v| !**v).count(),
            "{provider}: one reply per bad call"
        );
    }
}

#[test]
fn replies_carry_the_call_ids_in_each_providers_shape() {
    let tools = weather();
    let o = DispatchOptions::default();
    let openai = tools
        .dispatch(Provider::OpenAi, &response(Provider::OpenAi), &o)
        .unwrap();
    assert_eq!(openai.replies[0]["role"], "tool");
    assert_eq!(openai.replies[0]["tool_call_id"], "call_67890abc");
    assert!(openai.replies[1]["content"]
        .as_str()
        .unwrap()
        .contains("did you mean `get_time`?"));

    let responses = tools
        .dispatch(
            Provider::OpenAiResponses,
            &response(Provider::OpenAiResponses),
            &o,
        )
        .unwrap();
    assert_eq!(responses.replies[1]["type"], "function_call_output");
    assert_eq!(responses.replies[1]["call_id"], "call_99999def");
    // Truncated argument text is an error reply, not a crash.
    assert_eq!(responses.calls[2].call.name, "get_time");
    assert!(!responses.calls[2].is_valid());

    let anthropic = tools
        .dispatch(Provider::Anthropic, &response(Provider::Anthropic), &o)
        .unwrap();
    assert_eq!(
        anthropic.replies[0],
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01B88x71ab73kd826451kz3",
            "content": anthropic.calls[1].message().unwrap(),
            "is_error": true,
        })
    );
    assert!(anthropic.replies[0]["content"]
        .as_str()
        .unwrap()
        .contains("unknown parameter \"tz\""));

    let gemini = tools
        .dispatch(Provider::Gemini, &response(Provider::Gemini), &o)
        .unwrap();
    assert_eq!(gemini.calls[0].call.id, None);
    let reply = &gemini.replies[0]["functionResponse"];
    assert_eq!(reply["name"], "get_weather");
    assert!(reply["response"]["error"].is_string());
    assert!(reply.get("id").is_none(), "no id when the call had none");

    let mcp = tools
        .dispatch(Provider::Mcp, &response(Provider::Mcp), &o)
        .unwrap();
    assert_eq!(mcp.replies[0]["id"], 2);
    assert_eq!(mcp.replies[0]["result"]["isError"], true);
    assert_eq!(mcp.replies[0]["result"]["content"][0]["type"], "text");
}

#[test]
fn an_unknown_tool_over_mcp_is_the_json_rpc_error_invalid_params() {
    let tools = weather();
    let request = json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
        "params": {"name": "get_wheather", "arguments": {}}});
    let out = tools
        .dispatch(Provider::Mcp, &request, &DispatchOptions::default())
        .unwrap();
    assert_eq!(out.replies[0]["error"]["code"], -32602);
    assert!(out.replies[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("did you mean `get_weather`?"));
    assert!(matches!(out.calls[0].verdict, Verdict::Unknown(_)));
}

/// A response that is not in the provider's shape is an error at the pointer of the problem.
#[test]
fn malformed_envelopes_are_errors_with_a_pointer() {
    let tools = weather();
    let cases: &[(Provider, Value, &str)] = &[
        (Provider::OpenAi, json!([]), ""),
        (Provider::OpenAi, json!({"id": "x"}), ""),
        (Provider::OpenAi, json!({"choices": {}}), "/choices"),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "get_time"}}]}}]}),
            "/choices/0/message/tool_calls/0/function",
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "get_time", "arguments": {"timezone": "UTC"}}}]}}]}),
            "/choices/0/message/tool_calls/0/function/arguments",
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [{"id": 7, "function": {"name": "get_time", "arguments": "{}"}}]}}]}),
            "/choices/0/message/tool_calls/0/id",
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "function_call", "call_id": "c", "arguments": "{}"}]}),
            "/output/0",
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": "text"}),
            "/output",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "t", "name": "get_time", "input": "{}"}]}),
            "/content/0/input",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "t", "name": "get_time"}]}),
            "/content/0",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_time", "args": []}}]}}]}),
            "/candidates/0/content/parts/0/functionCall/args",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            "/candidates/0/content/parts/0/functionCall",
        ),
        (
            Provider::Mcp,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            "/method",
        ),
        (
            Provider::Mcp,
            json!({"jsonrpc": "2.0", "id": [1], "method": "tools/call", "params": {"name": "get_time"}}),
            "/id",
        ),
        (
            Provider::Mcp,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_time", "arguments": 3}}),
            "/params/arguments",
        ),
    ];
    for (provider, value, pointer) in cases {
        match tools.dispatch(*provider, value, &DispatchOptions::default()) {
            Err(DispatchError::Envelope(e)) => {
                assert_eq!(e.pointer, *pointer, "{provider} {value}: {e}")
            }
            other => panic!("{provider} {value}: expected an envelope error, got {other:?}"),
        }
    }
    let e = tools
        .dispatch_str(
            Provider::OpenAi,
            "{\"choices\": [",
            &DispatchOptions::default(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("not valid JSON"), "{e}");
}

/// Reading a response from text (OpenAI's skips what a call does not need) gives what reading
/// the parsed value gives, calls or error, on the golden responses and on every variant of a
/// call's fields.
#[test]
fn reading_text_and_reading_the_value_agree() {
    let mut texts: Vec<String> = Provider::ALL
        .iter()
        .map(|p| response(*p).to_string())
        .collect();
    let ids = [json!("c1"), json!(null), json!(7), Value::Null];
    let kinds = [json!("function"), json!("custom"), json!(3), json!(null)];
    let functions = [
        json!({"name": "get_time", "arguments": "{\"timezone\": \"UTC\"}"}),
        json!({"name": "get_time"}),
        json!({"arguments": "{}"}),
        json!({"name": 1, "arguments": "{}"}),
        json!({"name": "get_time", "arguments": {}}),
        json!(null),
    ];
    for id in &ids {
        for kind in &kinds {
            for function in &functions {
                let mut call = json!({"id": id, "type": kind, "function": function});
                if id.is_null() {
                    call.as_object_mut().unwrap().remove("id");
                }
                texts.push(json!({"choices": [{"message": {"tool_calls": [call]}}]}).to_string());
            }
        }
    }
    for extra in [
        json!({"choices": [{"message": null}]}),
        json!({"choices": [{"message": {"tool_calls": null}}]}),
        json!({"choices": [{}]}),
        json!({"choices": null}),
        json!({"choices": [3]}),
    ] {
        texts.push(extra.to_string());
    }
    texts.push(r#"{"choices": [], "choices": []}"#.to_string());
    // An array where an object belongs, at every level (serde reads a struct from one).
    for array in [
        json!([[]]),
        json!({"choices": [[]]}),
        json!({"choices": [{"message": [[]]}]}),
        json!({"choices": [{"message": {"tool_calls": [["c1", "function", ["get_time", "{}"]]]}}]}),
        json!({"choices": [{"message": {"tool_calls": [{"function": ["get_time", "{}"]}]}}]}),
    ] {
        texts.push(array.to_string());
    }
    for text in &texts {
        for &provider in Provider::ALL {
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                provider.calls_str(text),
                provider.calls(&value),
                "{provider}: {text}"
            );
        }
    }
}

#[test]
fn items_that_are_not_tool_calls_are_skipped() {
    let tools = weather();
    let o = DispatchOptions::default();
    let text_only = json!({"choices": [{"message": {"role": "assistant", "content": "Hi"}}]});
    assert!(tools
        .dispatch(Provider::OpenAi, &text_only, &o)
        .unwrap()
        .calls
        .is_empty());
    let blocked = json!({"candidates": [{"finishReason": "SAFETY"}]});
    assert!(tools
        .dispatch(Provider::Gemini, &blocked, &o)
        .unwrap()
        .calls
        .is_empty());
    let custom = json!({"choices": [{"message": {"tool_calls": [{"id": "c", "type": "custom", "custom": {"name": "x", "input": "y"}}]}}]});
    assert!(tools
        .dispatch(Provider::OpenAi, &custom, &o)
        .unwrap()
        .calls
        .is_empty());
}

/// `null` for an optional field: rejected in the source's reading (strict), read as absent with
/// the default filled in when the model was shown the `openai-strict` schema.
#[test]
fn null_for_an_optional_field_in_both_readings() {
    let tools = weather();
    let call = json!({"choices": [{"message": {"tool_calls": [{"id": "c", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"location\": \"Oslo\", \"unit\": null}"}}]}}]});
    let source = tools
        .dispatch(Provider::OpenAi, &call, &DispatchOptions::default())
        .unwrap();
    assert!(!source.all_valid());
    let strict = tools
        .dispatch(
            Provider::OpenAi,
            &call,
            &DispatchOptions {
                target: Some(Target::OpenAiStrict),
                mode: None,
            },
        )
        .unwrap();
    assert!(strict.all_valid());
    let Verdict::Valid(v) = &strict.calls[0].verdict else {
        unreachable!()
    };
    assert_eq!(*v.arguments, json!({"location": "Oslo", "unit": "celsius"}));
    assert!(v.coercions.is_empty());
    // Lax mode in the source's reading accepts it too, as a recorded coercion.
    let lax = tools
        .dispatch(
            Provider::OpenAi,
            &call,
            &DispatchOptions {
                target: None,
                mode: Some(Mode::Lax),
            },
        )
        .unwrap();
    let Verdict::Valid(v) = &lax.calls[0].verdict else {
        unreachable!()
    };
    assert_eq!(v.coercions.len(), 1);
}

#[test]
fn a_target_that_refuses_a_called_tool_is_an_error() {
    let tools = Toolset::from_source("/// Tag things.\ntool tag { tags: [\"a\", 1] }").unwrap();
    let call = json!({"choices": [{"message": {"tool_calls": [{"id": "c", "type": "function",
        "function": {"name": "tag", "arguments": "{\"tags\": [\"a\", 1]}"}}]}}]});
    let strict = DispatchOptions {
        target: Some(Target::OpenAiStrict),
        mode: None,
    };
    assert!(matches!(
        tools.dispatch(Provider::OpenAi, &call, &strict),
        Err(DispatchError::Target(_))
    ));
    assert!(tools
        .dispatch(Provider::OpenAi, &call, &DispatchOptions::default())
        .unwrap()
        .all_valid());
}

// ---------------------------------------------------------------------------------------------
// BFCL: every ground-truth call, wrapped in each provider's envelope

#[path = "support/corpus.rs"]
mod shared;

fn corpus() -> Option<PathBuf> {
    shared::corpus("BFCL dispatch test")
}

fn read_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

/// `call` in the envelope `provider` sends.
fn wrap(provider: Provider, id: &str, name: &str, args: &Value) -> Value {
    match provider {
        Provider::OpenAi => {
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}}]})
        }
        Provider::OpenAiResponses => json!({"output": [
            {"type": "function_call", "call_id": id, "name": name, "arguments": args.to_string()}]}),
        Provider::Anthropic => json!({"content": [
            {"type": "tool_use", "id": id, "name": name, "input": args}]}),
        Provider::Gemini => json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": name, "args": args, "id": id}}]}}]}),
        Provider::Mcp => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": args}}),
    }
}

const CATEGORIES: &[&str] = &[
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
];

#[test]
fn bfcl_calls_in_every_envelope_get_the_verdict_of_validate() {
    let Some(root) = corpus() else { return };
    let (mut calls, mut valid, mut checked, mut unimported) = (0, 0, 0, 0);
    for cat in CATEGORIES {
        let path = root.join(format!("bfcl/derived/{cat}.calls.jsonl"));
        if !path.is_file() {
            continue;
        }
        for call in read_lines(&path) {
            let name = call["function"].as_str().unwrap();
            let args = &call["args"];
            let schema = &call["json_schema"];
            let doc = json!({"name": name, "description": "A function.", "parameters": schema});
            let Ok(imported) = tooldef::import::import(
                &Value::Array(vec![json!({"type": "function", "function": doc})]),
                tooldef::import::Dialect::OpenAi,
                &tooldef::import::Options::default(),
            ) else {
                unimported += 1;
                continue;
            };
            let tools = Toolset::from_source(&imported.source)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{}", imported.source));
            let tool = tools.names().next().unwrap().to_string();
            let expected = tools
                .validator(&tool)
                .unwrap()
                .validate_value(args, Mode::Strict);
            calls += 1;
            valid += usize::from(expected.is_ok());
            for &provider in Provider::ALL {
                let envelope = wrap(provider, "call_1", &tool, args);
                let out = tools
                    .dispatch(provider, &envelope, &DispatchOptions::default())
                    .unwrap_or_else(|e| panic!("{name} {provider}: {e}"));
                assert_eq!(out.calls.len(), 1);
                match (&out.calls[0].verdict, &expected) {
                    (Verdict::Valid(got), Ok(want)) => {
                        assert_eq!(got.arguments, want.arguments, "{name} {provider}")
                    }
                    (Verdict::Invalid(got), Err(want)) => {
                        assert_eq!(got.errors, want.errors, "{name} {provider}");
                        assert_eq!(out.replies.len(), 1);
                    }
                    (got, want) => panic!("{name} {provider}: {got:?} vs {want:?}"),
                }
                checked += 1;
            }
        }
    }
    eprintln!(
        "BFCL dispatch: {calls} calls ({valid} valid) × 5 envelopes = {checked} checked; \
         {unimported} schemas not importable"
    );
    assert!(calls > 3000, "only {calls} calls were read");
    assert_eq!(unimported, 0, "every BFCL schema imports");
}

#[test]
fn a_tool_call_is_plain_data() {
    let call = ToolCall {
        id: None,
        name: "t".into(),
        arguments: CallArguments::Text("{}".into()),
        pointer: "/x".into(),
    };
    assert_eq!(call.clone(), call);
}

#[test]
fn many_unknown_tools_in_one_response_are_told_in_bounded_work() {
    let source: String = (0..1_000)
        .map(|i| format!("/// T.\ntool some_tool_number_{i} {{}}\n"))
        .collect();
    let tools = Toolset::from_source(&source).expect("compiles");
    // 5,000 names the set lacks, each close to one it has, then the first one again.
    let mut blocks: Vec<Value> = (0..5_000)
        .map(|i| json!({"type": "tool_use", "id": format!("c{i}"), "name": format!("sone_toul_numbr_{i}x"), "input": {}}))
        .collect();
    blocks.push(
        json!({"type": "tool_use", "id": "again", "name": "sone_toul_numbr_0x", "input": {}}),
    );
    let out = tools
        .dispatch(
            Provider::Anthropic,
            &json!({ "content": blocks }),
            &DispatchOptions::default(),
        )
        .expect("dispatched");
    let told: Vec<&str> = out
        .calls
        .iter()
        .map(|c| match &c.verdict {
            Verdict::Unknown(message) => message.as_str(),
            other => panic!("unknown, not {other:?}"),
        })
        .collect();
    assert_eq!(told.len(), 5_001);
    // The first names get their suggestion; once the budget is spent the rest do not, and
    // every message still lists the tools.
    assert!(
        told[0].contains("did you mean `some_tool_number_0`?"),
        "{}",
        told[0]
    );
    assert!(!told[4_999].contains("did you mean"), "{}", told[4_999]);
    assert!(told
        .iter()
        .all(|m| m.contains("The tools are: `some_tool_number_0`")));
    // A name called again is told the same.
    assert_eq!(told[5_000], told[0]);
}
