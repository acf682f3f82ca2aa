//! The OpenAI Responses API: calls are the `output[]` items of type `function_call`,
//! `{call_id, name, arguments}` with `arguments` a JSON string; a reply is a
//! `function_call_output` item (platform.openai.com/docs/guides/function-calling).

use serde_json::{json, Value};

use super::{index, CallArguments, EnvelopeError, Provider, Reader, ToolCall};

pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
    let r = Reader::new(Provider::OpenAiResponses);
    let root = r.object(response, "")?;
    let mut calls = Vec::new();
    for (i, item) in r.array(root, "", "output", false)?.iter().enumerate() {
        let at = index("/output", i);
        let item = r.object(item, &at)?;
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        calls.push(ToolCall {
            id: r.id(item, &at, "call_id")?,
            name: r.string(item, &at, "name")?.to_string(),
            arguments: CallArguments::Text(r.string(item, &at, "arguments")?.to_string()),
            pointer: at,
        });
    }
    Ok(calls)
}

pub(super) fn reply(call: &ToolCall, text: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call.id, "output": text})
}
