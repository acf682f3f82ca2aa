//! Provider envelopes: the tool calls in a model's response, and the replies to send back, in
//! the shape of the provider that sent them.
//!
//! One file per provider reads its calls and writes its reply:
//!
//! | [`Provider`] | calls are read from | reply to an invalid or unknown call |
//! |---|---|---|
//! | `openai` | `choices[].message.tool_calls[]` `{id, function: {name, arguments}}` | `{"role": "tool", "tool_call_id", "content"}` |
//! | `openai-responses` | `output[]` items `{type: "function_call", call_id, name, arguments}` | `{"type": "function_call_output", "call_id", "output"}` |
//! | `anthropic` | `content[]` blocks `{type: "tool_use", id, name, input}` | `{"type": "tool_result", "tool_use_id", "content", "is_error": true}` |
//! | `gemini` | `candidates[].content.parts[].functionCall` `{name, args, id?}` | `{"functionResponse": {"name", "response": {"error"}, "id"?}}` |
//! | `mcp` | a `tools/call` JSON-RPC request `{id, params: {name, arguments}}` | the JSON-RPC response: a `CallToolResult` with `isError: true`, or error -32602 for an unknown tool |
//!
//! Items that are not tool calls (text, reasoning, other block types) are skipped. A response
//! that does not have the provider's shape is an [`EnvelopeError`] with the JSON pointer of the
//! problem.

mod anthropic;
mod gemini;
mod mcp;
mod openai;
mod openai_responses;

use std::fmt;

use serde_json::{json, Map, Value};

use crate::emit::Target;

/// A provider whose responses carry tool calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions.
    OpenAi,
    /// The OpenAI Responses API.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
    /// An MCP `tools/call` request.
    Mcp,
}

impl Provider {
    /// Every provider.
    pub const ALL: &'static [Provider] = &[
        Provider::OpenAi,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ];

    /// The name used on the command line (`--from`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
        }
    }

    /// The provider called `name` on the command line.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.iter().copied().find(|p| p.as_str() == name)
    }

    /// The provider's own target (for `openai-responses`, the model is shown the non-strict
    /// shape, and for `gemini` the JSON Schema form, unless the caller says otherwise: see
    /// [`crate::DispatchOptions::target`]).
    pub fn target(self) -> Target {
        match self {
            Provider::OpenAi => Target::OpenAi,
            Provider::OpenAiResponses => Target::OpenAiResponses,
            Provider::Anthropic => Target::Anthropic,
            Provider::Gemini => Target::Gemini,
            Provider::Mcp => Target::Mcp,
        }
    }

    /// The tool calls of a response, in order.
    pub fn calls(self, response: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
        match self {
            Provider::OpenAi => openai::calls(response),
            Provider::OpenAiResponses => openai_responses::calls(response),
            Provider::Anthropic => anthropic::calls(response),
            Provider::Gemini => gemini::calls(response),
            Provider::Mcp => mcp::calls(response),
        }
    }

    /// The tool calls of a response given as JSON text. Text that is not JSON is an error at
    /// the whole response, with the line and column.
    pub fn calls_str(self, text: &str) -> Result<Vec<ToolCall>, EnvelopeError> {
        // OpenAI's responses are read without building the parts a call does not need.
        if self == Provider::OpenAi {
            if let Some(calls) = openai::calls_str(text) {
                return Ok(calls);
            }
        }
        let value: Value = serde_json::from_str(text).map_err(|e| EnvelopeError {
            provider: self.as_str(),
            pointer: String::new(),
            message: format!("not valid JSON: {e}"),
        })?;
        self.calls(&value)
    }

    /// The reply that hands `text` back to the model as the result of `call`; `error` marks it
    /// as a failed call where the provider has a way to say so.
    pub fn reply(self, call: &ToolCall, text: &str, error: bool) -> Value {
        match self {
            Provider::OpenAi => openai::reply(call, text),
            Provider::OpenAiResponses => openai_responses::reply(call, text),
            Provider::Anthropic => anthropic::reply(call, text, error),
            Provider::Gemini => gemini::reply(call, text, error),
            Provider::Mcp => mcp::reply(call, text, error),
        }
    }

    /// The reply that hands a handler's result back to the model as the answer to `call`:
    /// [`Provider::reply`] with the result as text (a string as it is, anything else as JSON),
    /// except where the provider carries JSON: Gemini's `functionResponse.response` holds the
    /// value itself (`{"output": v}` or `{"error": v}`), and MCP's result carries an object as
    /// `structuredContent` beside its text, as the MCP server does.
    pub fn result_reply(self, call: &ToolCall, result: &Value, error: bool) -> Value {
        match self {
            Provider::Gemini => gemini::result_reply(call, result, error),
            Provider::Mcp => mcp::result_reply(call, result, error),
            _ => self.reply(call, &as_text(result), error),
        }
    }

    /// The messages to append to the conversation that hold `replies` (one per call, in call
    /// order, as [`Provider::reply`] makes them): OpenAI's `role: "tool"` messages and the
    /// Responses API's `function_call_output` items as they are; for Anthropic one `role:
    /// "user"` message holding every `tool_result` block; for Gemini one `role: "user"` content
    /// holding every `functionResponse` part; for MCP the JSON-RPC responses as they are (one
    /// call each).
    pub fn messages(self, replies: Vec<Value>) -> Vec<Value> {
        if replies.is_empty() {
            return replies;
        }
        match self {
            Provider::Anthropic => vec![json!({"role": "user", "content": replies})],
            Provider::Gemini => vec![json!({"role": "user", "parts": replies})],
            Provider::OpenAi | Provider::OpenAiResponses | Provider::Mcp => replies,
        }
    }

    /// The reply for a call to a tool the set does not have. MCP answers it with the JSON-RPC
    /// error -32602 (the protocol's "unknown tool"); the others as a failed call.
    pub fn unknown_tool_reply(self, call: &ToolCall, text: &str) -> Value {
        match self {
            Provider::Mcp => mcp::unknown_tool(call, text),
            _ => self.reply(call, text, true),
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A result as text: a string as it is, anything else as compact JSON.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One tool call read from a response.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The provider's call id (a JSON-RPC id for MCP, which may be a number); `None` where the
    /// provider gave none.
    pub id: Option<Value>,
    /// The tool's name.
    pub name: String,
    /// The arguments as the provider sent them.
    pub arguments: CallArguments,
    /// Where the call is in the response (a JSON pointer).
    pub pointer: String,
}

/// The arguments of a call as the provider sent them.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArguments {
    /// JSON text (OpenAI's `arguments` string), validated as text.
    Text(String),
    /// A JSON value (Anthropic's `input`, Gemini's `args`, MCP's `arguments`).
    Value(Value),
}

impl CallArguments {
    /// The arguments as the validator takes them.
    pub fn as_arguments(&self) -> crate::validate::Arguments<'_> {
        match self {
            CallArguments::Text(t) => crate::validate::Arguments::Text(t),
            CallArguments::Value(v) => crate::validate::Arguments::Value(v),
        }
    }
}

/// A response that does not have the provider's shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed {provider} response at {}: {message}", display_pointer(.pointer))]
pub struct EnvelopeError {
    /// The provider.
    pub provider: &'static str,
    /// The JSON pointer of the problem (`""` for the whole response).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

fn display_pointer(p: &str) -> &str {
    if p.is_empty() {
        "/"
    } else {
        p
    }
}

/// Walks a response, naming the pointer of every step so that an error says where it is.
pub(crate) struct Reader {
    provider: Provider,
}

impl Reader {
    pub(crate) fn new(provider: Provider) -> Reader {
        Reader { provider }
    }

    pub(crate) fn error(&self, pointer: &str, message: impl Into<String>) -> EnvelopeError {
        EnvelopeError {
            provider: self.provider.as_str(),
            pointer: pointer.to_string(),
            message: message.into(),
        }
    }

    /// The object at `pointer`.
    pub(crate) fn object<'v>(
        &self,
        v: &'v Value,
        pointer: &str,
    ) -> Result<&'v Map<String, Value>, EnvelopeError> {
        v.as_object()
            .ok_or_else(|| self.error(pointer, format!("expected an object, got {}", kind(v))))
    }

    /// The member `key` of `object` (at `pointer`), which must be present.
    pub(crate) fn member<'v>(
        &self,
        object: &'v Map<String, Value>,
        pointer: &str,
        key: &str,
    ) -> Result<&'v Value, EnvelopeError> {
        object
            .get(key)
            .ok_or_else(|| self.error(pointer, format!("missing `{key}`")))
    }

    /// The array member `key` of `object`; `None` when absent (and `optional`).
    pub(crate) fn array<'v>(
        &self,
        object: &'v Map<String, Value>,
        pointer: &str,
        key: &str,
        optional: bool,
    ) -> Result<&'v [Value], EnvelopeError> {
        match object.get(key) {
            None | Some(Value::Null) if optional => Ok(&[]),
            None => Err(self.error(pointer, format!("missing `{key}`"))),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.error(
                &join(pointer, key),
                format!("expected an array, got {}", kind(other)),
            )),
        }
    }

    /// The string member `key` of `object`.
    pub(crate) fn string<'v>(
        &self,
        object: &'v Map<String, Value>,
        pointer: &str,
        key: &str,
    ) -> Result<&'v str, EnvelopeError> {
        match self.member(object, pointer, key)? {
            Value::String(s) => Ok(s),
            other => Err(self.error(
                &join(pointer, key),
                format!("expected a string, got {}", kind(other)),
            )),
        }
    }

    /// The call id member `key`: a string, or absent.
    pub(crate) fn id(
        &self,
        object: &Map<String, Value>,
        pointer: &str,
        key: &str,
    ) -> Result<Option<Value>, EnvelopeError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v @ Value::String(_)) => Ok(Some(v.clone())),
            Some(other) => Err(self.error(
                &join(pointer, key),
                format!("expected a string id, got {}", kind(other)),
            )),
        }
    }
}

/// `pointer/segment`, the segment escaped.
pub(crate) fn join(pointer: &str, segment: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + segment.len() + 1);
    out.push_str(pointer);
    out.push('/');
    out.push_str(&crate::validate::error::escape_pointer(segment));
    out
}

/// `pointer/index`.
pub(crate) fn index(pointer: &str, i: usize) -> String {
    format!("{pointer}/{i}")
}

fn kind(v: &Value) -> &'static str {
    crate::validate::message_kind(v)
}
