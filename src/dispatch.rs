//! Dispatching a model's response: every tool call read from the provider's envelope,
//! validated by the toolset, and the reply for each invalid or unknown call in that provider's
//! shape, ready to append to the conversation.
//!
//! ```
//! use tooldef::envelope::Provider;
//! use tooldef::{DispatchOptions, Toolset};
//!
//! let tools = Toolset::from_source(
//!     "/// Weather for a city.\ntool get_weather { city: string, days?: integer = 1 }",
//! ).unwrap();
//! let response = serde_json::json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
//!     {"id": "call_1", "type": "function",
//!      "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}},
//!     {"id": "call_2", "type": "function",
//!      "function": {"name": "get_wether", "arguments": "{}"}}
//! ]}}]});
//! let out = tools.dispatch(Provider::OpenAi, &response, &DispatchOptions::default()).unwrap();
//! assert!(out.calls[0].is_valid());
//! assert_eq!(out.replies.len(), 1); // the unknown tool
//! assert_eq!(out.replies[0]["tool_call_id"], "call_2");
//! assert!(out.replies[0]["content"].as_str().unwrap().contains("did you mean `get_weather`?"));
//! ```

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::emit::Target;
use crate::envelope::{EnvelopeError, Provider, ToolCall};
use crate::suggest::{listed, Budget};
use crate::validate::{CompileError, Invalid, Mode, Validated};
use crate::Toolset;

/// How to dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DispatchOptions {
    /// The target whose schema the model was shown; `None` is the provider's own target in its
    /// non-strict shape, which reads calls in the source's shape. `openai-strict` (and
    /// `openai-responses` for a tool it emits strict) reads `null` in an optional field as
    /// absent ([`crate::validate::Reading`]).
    pub target: Option<Target>,
    /// The mode; `None` uses each tool's `@strict` / `@lax` (strict when it has neither).
    pub mode: Option<Mode>,
}

/// Why a response could not be dispatched at all.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    /// The response does not have the provider's shape.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
    /// The target cannot carry a tool the response calls, so the model cannot have been shown
    /// it in that target.
    #[error(transparent)]
    Target(CompileError),
}

/// The verdict on one call.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Valid: the normalized arguments and the coercions applied.
    Valid(Validated<'static>),
    /// Invalid arguments.
    Invalid(Invalid),
    /// No tool of that name in the set; the message names the closest and lists the tools.
    Unknown(String),
}

/// One call and its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct CallReport {
    /// The call as read.
    pub call: ToolCall,
    /// What the toolset says of it.
    pub verdict: Verdict,
}

impl CallReport {
    /// Whether the call may run.
    pub fn is_valid(&self) -> bool {
        matches!(self.verdict, Verdict::Valid(_))
    }

    /// The message for the model when the call is invalid or unknown.
    pub fn message(&self) -> Option<String> {
        match &self.verdict {
            Verdict::Valid(_) => None,
            Verdict::Invalid(e) => Some(e.message()),
            Verdict::Unknown(m) => Some(m.clone()),
        }
    }

    /// The call as one JSON object: `{id, name, valid: true, arguments, coercions, repairs}`, or
    /// `{id, name, valid: false, errors: [{path, code, message}], message}`.
    pub fn to_json(&self) -> Value {
        let id = self.call.id.clone().unwrap_or(Value::Null);
        match &self.verdict {
            Verdict::Valid(v) => json!({
                "id": id,
                "name": self.call.name,
                "valid": true,
                "arguments": v.arguments,
                "coercions": v.coercions,
                "repairs": v.repairs,
            }),
            Verdict::Invalid(e) => json!({
                "id": id,
                "name": self.call.name,
                "valid": false,
                "errors": e.errors_json(),
                "message": e.message(),
            }),
            Verdict::Unknown(message) => json!({
                "id": id,
                "name": self.call.name,
                "valid": false,
                "errors": [{"path": "", "code": "unknown-tool", "message": message}],
                "message": message,
            }),
        }
    }
}

/// The calls of a response and the replies for the invalid and unknown ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatched {
    /// Every call, in order.
    pub calls: Vec<CallReport>,
    /// The provider-shaped reply for every invalid or unknown call, in call order.
    pub replies: Vec<Value>,
}

impl Dispatched {
    /// Whether every call is valid.
    pub fn all_valid(&self) -> bool {
        self.calls.iter().all(CallReport::is_valid)
    }

    /// `{"calls": [...], "replies": [...]}`.
    pub fn to_json(&self) -> Value {
        json!({
            "calls": self.calls.iter().map(CallReport::to_json).collect::<Vec<_>>(),
            "replies": self.replies,
        })
    }
}

/// The most tool names an unknown-tool message lists.
const LISTED_NAMES: usize = 20;

impl Toolset {
    /// Reads the tool calls of a provider's response, validates each, and builds the reply for
    /// each invalid or unknown call.
    pub fn dispatch(
        &self,
        provider: Provider,
        response: &Value,
        options: &DispatchOptions,
    ) -> Result<Dispatched, DispatchError> {
        self.dispatch_calls(provider, provider.calls(response)?, options)
    }

    /// [`Toolset::dispatch`] of a response given as JSON text; text that is not JSON is an
    /// [`EnvelopeError`] at the whole response, with the line and column.
    pub fn dispatch_str(
        &self,
        provider: Provider,
        response: &str,
        options: &DispatchOptions,
    ) -> Result<Dispatched, DispatchError> {
        self.dispatch_calls(provider, provider.calls_str(response)?, options)
    }

    /// Validates calls read from a response and builds the replies.
    pub fn dispatch_calls(
        &self,
        provider: Provider,
        calls: Vec<ToolCall>,
        options: &DispatchOptions,
    ) -> Result<Dispatched, DispatchError> {
        let mut reports = Vec::with_capacity(calls.len());
        let mut replies = Vec::new();
        // What each unknown name is told: a response may call many names the set lacks, and
        // each suggestion compares the name with every tool, so their work comes from one
        // budget, and a name called again is told the same.
        let mut unknown = Unknown::default();
        for call in calls {
            let Some((_, validator)) = self.known(&call.name, options.target) else {
                let message = unknown.message(self, &call.name);
                replies.push(provider.unknown_tool_reply(&call, &message));
                reports.push(CallReport {
                    call,
                    verdict: Verdict::Unknown(message),
                });
                continue;
            };
            let verdict = match validator {
                Ok(validator) => {
                    let mode = options.mode.unwrap_or(validator.default_mode());
                    match validator.validate(call.arguments.as_arguments(), mode) {
                        Ok(valid) => Verdict::Valid(valid.into_owned()),
                        Err(invalid) => {
                            replies.push(provider.reply(&call, &invalid.message(), true));
                            Verdict::Invalid(invalid)
                        }
                    }
                }
                Err(e) => return Err(DispatchError::Target(e)),
            };
            reports.push(CallReport { call, verdict });
        }
        Ok(Dispatched {
            calls: reports,
            replies,
        })
    }
}

/// The messages for the unknown tool names of one response.
#[derive(Default)]
struct Unknown {
    /// The message for each name seen.
    told: HashMap<String, String>,
    /// The list of the set's tools every message ends with, made once.
    tools: Option<String>,
    suggestions: Budget,
}

impl Unknown {
    /// What the model is told when it calls `name`, a tool `set` does not have.
    fn message(&mut self, set: &Toolset, name: &str) -> String {
        if let Some(told) = self.told.get(name) {
            return told.clone();
        }
        let mut message = format!("There is no tool named `{name}`");
        if let Some(s) = self.suggestions.did_you_mean(name, set.names()) {
            message.push_str(&format!("; did you mean `{s}`?"));
        } else {
            message.push('.');
        }
        if !set.is_empty() {
            message.push_str(self.tools.get_or_insert_with(|| {
                let names = set.names().map(|n| format!("`{n}`"));
                format!(" The tools are: {}.", listed(names, LISTED_NAMES, ", "))
            }));
        }
        self.told.insert(name.to_string(), message.clone());
        message
    }
}
