//! MCP: a `tools/call` JSON-RPC request, `{jsonrpc: "2.0", id, method: "tools/call", params:
//! {name, arguments?}}`; a reply is the JSON-RPC response holding a `CallToolResult` (`content`
//! and `isError`), and an unknown tool is the JSON-RPC error -32602
//! (modelcontextprotocol.io/specification/2025-11-25/server/tools, "Error Handling").

use serde_json::{json, Map, Value};

use super::{join, CallArguments, EnvelopeError, Provider, Reader, ToolCall};

/// JSON-RPC's "invalid params", which MCP uses for an unknown tool.
pub(crate) const INVALID_PARAMS: i64 = -32602;

pub(super) fn calls(request: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
    let r = Reader::new(Provider::Mcp);
    let root = r.object(request, "")?;
    let method = r.string(root, "", "method")?;
    if method != "tools/call" {
        return Err(r.error(
            "/method",
            format!("expected a `tools/call` request, got method `{method}`"),
        ));
    }
    let id = match r.member(root, "", "id")? {
        id @ (Value::String(_) | Value::Number(_)) => id.clone(),
        _ => return Err(r.error("/id", "a request id is a string or a number")),
    };
    let params = r.object(r.member(root, "", "params")?, "/params")?;
    let arguments = match params.get("arguments") {
        None => Value::Object(Map::new()),
        Some(args) => {
            r.object(args, &join("/params", "arguments"))?;
            args.clone()
        }
    };
    Ok(vec![ToolCall {
        id: Some(id),
        name: r.string(params, "/params", "name")?.to_string(),
        arguments: CallArguments::Value(arguments),
        pointer: "/params".into(),
    }])
}

pub(super) fn reply(call: &ToolCall, text: &str, error: bool) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": call.id,
        "result": {"content": [{"type": "text", "text": text}], "isError": error},
    })
}

/// The `CallToolResult`: the result as text, and an object result also as
/// `structuredContent`.
pub(super) fn result_reply(call: &ToolCall, result: &Value, error: bool) -> Value {
    let mut reply = reply(call, &super::as_text(result), error);
    if !error && result.is_object() {
        reply["result"]["structuredContent"] = result.clone();
    }
    reply
}

pub(super) fn unknown_tool(call: &ToolCall, text: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": call.id,
        "error": {"code": INVALID_PARAMS, "message": text},
    })
}
