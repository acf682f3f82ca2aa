//! OpenAI Chat Completions: calls in `choices[].message.tool_calls[]`, each
//! `{id, type: "function", function: {name, arguments}}` with `arguments` a JSON string; a
//! reply is a `tool` message (platform.openai.com/docs/api-reference/chat/object,
//! "Function calling").

use serde_json::{json, Value};

use super::{index, join, CallArguments, EnvelopeError, Provider, Reader, ToolCall};

pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
    let r = Reader::new(Provider::OpenAi);
    let root = r.object(response, "")?;
    let mut calls = Vec::new();
    for (c, choice) in r.array(root, "", "choices", false)?.iter().enumerate() {
        let at = index("/choices", c);
        let choice = r.object(choice, &at)?;
        let at = join(&at, "message");
        let Some(message) = choice.get("message") else {
            continue;
        };
        let message = r.object(message, &at)?;
        for (i, call) in r
            .array(message, &at, "tool_calls", true)?
            .iter()
            .enumerate()
        {
            let at = index(&join(&at, "tool_calls"), i);
            let call = r.object(call, &at)?;
            // Other kinds of call (`custom` tools) are not function calls.
            if call
                .get("type")
                .is_some_and(|t| t.as_str() != Some("function"))
            {
                continue;
            }
            let id = r.id(call, &at, "id")?;
            let function_at = join(&at, "function");
            let function = r.object(r.member(call, &at, "function")?, &function_at)?;
            calls.push(ToolCall {
                id,
                name: r.string(function, &function_at, "name")?.to_string(),
                arguments: CallArguments::Text(
                    r.string(function, &function_at, "arguments")?.to_string(),
                ),
                pointer: at,
            });
        }
    }
    Ok(calls)
}

pub(super) fn reply(call: &ToolCall, text: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call.id, "content": text})
}
