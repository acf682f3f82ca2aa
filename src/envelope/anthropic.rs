//! Anthropic Messages: calls are the `content[]` blocks of type `tool_use`, `{id, name, input}`
//! with `input` an object; a reply is a `tool_result` block, with `is_error` for a failed call
//! (docs.anthropic.com/en/docs/build-with-claude/tool-use).

use serde_json::{json, Value};

use super::{index, join, CallArguments, EnvelopeError, Provider, Reader, ToolCall};

pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
    let r = Reader::new(Provider::Anthropic);
    let root = r.object(response, "")?;
    let mut calls = Vec::new();
    for (i, block) in r.array(root, "", "content", false)?.iter().enumerate() {
        let at = index("/content", i);
        let block = r.object(block, &at)?;
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let input = r.member(block, &at, "input")?;
        r.object(input, &join(&at, "input"))?;
        calls.push(ToolCall {
            id: r.id(block, &at, "id")?,
            name: r.string(block, &at, "name")?.to_string(),
            arguments: CallArguments::Value(input.clone()),
            pointer: at,
        });
    }
    Ok(calls)
}

pub(super) fn reply(call: &ToolCall, text: &str, error: bool) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": call.id, "content": text});
    if error {
        block["is_error"] = Value::Bool(true);
    }
    block
}
