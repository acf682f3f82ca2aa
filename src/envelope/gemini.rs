//! Gemini `generateContent`: calls are the `functionCall` parts of
//! `candidates[].content.parts[]`, `{name, args?, id?}` with `args` an object; a reply is a
//! `functionResponse` part whose `response` holds `{"error": ...}` for a failed call and
//! `{"output": ...}` otherwise (ai.google.dev/gemini-api/docs/function-calling). Calls look
//! the same whichever schema form declared the function (`gemini`'s `parametersJsonSchema` or
//! `gemini-openapi`'s `parameters`), so both targets read them here.

use serde_json::{json, Map, Value};

use super::{index, join, CallArguments, EnvelopeError, Provider, Reader, ToolCall};

pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
    let r = Reader::new(Provider::Gemini);
    let root = r.object(response, "")?;
    let mut calls = Vec::new();
    for (c, candidate) in r.array(root, "", "candidates", false)?.iter().enumerate() {
        let at = index("/candidates", c);
        let candidate = r.object(candidate, &at)?;
        // A candidate stopped by a safety filter has no content.
        let Some(content) = candidate.get("content") else {
            continue;
        };
        let at = join(&at, "content");
        let content = r.object(content, &at)?;
        for (p, part) in r.array(content, &at, "parts", true)?.iter().enumerate() {
            let part_at = index(&join(&at, "parts"), p);
            let part = r.object(part, &part_at)?;
            let Some(call) = part.get("functionCall") else {
                continue;
            };
            let call_at = join(&part_at, "functionCall");
            let call = r.object(call, &call_at)?;
            // `args` is optional: a function without parameters is called without it.
            let arguments = match call.get("args") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(args) => {
                    r.object(args, &join(&call_at, "args"))?;
                    args.clone()
                }
            };
            calls.push(ToolCall {
                id: r.id(call, &call_at, "id")?,
                name: r.string(call, &call_at, "name")?.to_string(),
                arguments: CallArguments::Value(arguments),
                pointer: call_at,
            });
        }
    }
    Ok(calls)
}

pub(super) fn reply(call: &ToolCall, text: &str, error: bool) -> Value {
    result_reply(call, &Value::String(text.to_string()), error)
}

/// The `functionResponse` part: the result under `output`, or `error` for a failed call; the
/// call's id kept where it had one.
pub(super) fn result_reply(call: &ToolCall, result: &Value, error: bool) -> Value {
    let key = if error { "error" } else { "output" };
    let mut response = json!({"name": call.name, "response": {key: result}});
    if let Some(id) = &call.id {
        response["id"] = id.clone();
    }
    json!({ "functionResponse": response })
}
