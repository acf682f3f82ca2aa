//! Closing the loop with the model: every tool call of a provider's response run through the
//! runtime, and the message(s) the provider expects next built from the results.

use serde_json::{json, Value};

use super::{CallError, Reply, RunOptions, Runtime};
use crate::envelope::{as_text, EnvelopeError, Provider, ToolCall};

/// One call of a response, and how it ended.
#[derive(Debug)]
pub struct TurnCall {
    /// The call as the response holds it.
    pub call: ToolCall,
    /// What the model is told ([`Reply`]), or what the host must handle ([`CallError`]:
    /// `@on_error(raise)`, no handler, a cancellation). Either way the model gets a reply.
    pub outcome: Result<Reply, CallError>,
    /// The reply to the call in the provider's shape.
    pub reply: Value,
}

impl TurnCall {
    /// Whether the call ran and its result is not an error.
    pub fn succeeded(&self) -> bool {
        matches!(&self.outcome, Ok(reply) if !reply.is_error)
    }

    /// The call as JSON: its id and tool, whether it succeeded, what the model is told, the
    /// error the host gets (if any), and its audit record.
    pub fn to_json(&self) -> Value {
        let (content, is_error, error, audit) = match &self.outcome {
            Ok(reply) => (reply.content.clone(), reply.is_error, None, &reply.audit),
            Err(e) => (
                Value::String(e.to_string()),
                true,
                Some(e.to_string()),
                e.audit.as_ref(),
            ),
        };
        let mut out = json!({
            "id": self.call.id,
            "tool": self.call.name,
            "ok": self.succeeded(),
            "is_error": is_error,
            "content": content,
            "audit": audit,
        });
        if let Some(error) = error {
            out["error"] = Value::String(error);
        }
        out
    }
}

/// Every call of a response run, and the messages to append to the conversation.
#[derive(Debug)]
pub struct Turn {
    /// The provider the response came from.
    pub provider: Provider,
    /// The calls, in the response's order.
    pub calls: Vec<TurnCall>,
    /// What to append to the conversation next, in the provider's shape
    /// ([`Provider::messages`]): a reply for every call, in call order.
    pub messages: Vec<Value>,
}

impl Turn {
    /// Whether every call ran and none answered with an error.
    pub fn all_succeeded(&self) -> bool {
        self.calls.iter().all(TurnCall::succeeded)
    }

    /// `{"calls": [...], "replies": [...], "messages": [...]}`: each call with its outcome and
    /// audit, the reply to each, and the messages to append.
    pub fn to_json(&self) -> Value {
        json!({
            "calls": self.calls.iter().map(TurnCall::to_json).collect::<Vec<_>>(),
            "replies": self.calls.iter().map(|c| c.reply.clone()).collect::<Vec<_>>(),
            "messages": self.messages,
        })
    }
}

impl Runtime {
    /// Runs every tool call of `response` (a `provider` response) through its handler and the
    /// tool's policies ([`Runtime::call`]), one after another in the response's order, and
    /// builds the message(s) the provider expects next. The arguments are read in the shape of
    /// `options.target`, else of the provider's own target. A call to a `@requires_approval`
    /// tool runs only when the runtime's [`super::Approver`] approves it; otherwise its reply
    /// says that approval was not given, and its handler never runs.
    ///
    /// Every call gets a reply, since a provider refuses a conversation in which a call has
    /// none: a call that fails for the host ([`CallError`]) is answered with its error, and the
    /// error is also in its [`TurnCall::outcome`]. A call to a tool the set lacks is answered as
    /// the provider answers an unknown tool.
    pub async fn run_response(
        &self,
        provider: Provider,
        response: &Value,
        options: &RunOptions,
    ) -> Result<Turn, EnvelopeError> {
        let calls = provider.calls(response)?;
        let target = options.target.unwrap_or_else(|| provider.target());
        let mut out = Vec::with_capacity(calls.len());
        for call in calls {
            let options = options.clone().target(target);
            let outcome = self
                .call(&call.name, call.arguments.as_arguments(), options)
                .await;
            // A call to a tool the set lacks is answered as the provider answers an unknown
            // tool, whether the runtime told the model (`Ok`) or the host (`Err`).
            let unknown = self.toolset().tool(&call.name).is_none();
            let reply = match &outcome {
                Ok(r) if unknown => provider.unknown_tool_reply(&call, &as_text(&r.content)),
                Ok(r) => provider.result_reply(&call, &r.content, r.is_error),
                Err(e) if unknown => provider.unknown_tool_reply(&call, &e.to_string()),
                Err(e) => provider.reply(&call, &e.to_string(), true),
            };
            out.push(TurnCall {
                call,
                outcome,
                reply,
            });
        }
        let messages = provider.messages(out.iter().map(|c| c.reply.clone()).collect());
        Ok(Turn {
            provider,
            calls: out,
            messages,
        })
    }
}
