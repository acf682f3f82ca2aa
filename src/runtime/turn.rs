//! Closing the loop with the model: every tool call of a provider's response run through the
//! runtime, and the message(s) the provider expects next built from the results.

use serde_json::{json, Value};

use super::{Audit, CallError, CallOutcome, Reply, RunOptions, Runtime};
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

    /// The call's record.
    pub fn audit(&self) -> &Audit {
        match &self.outcome {
            Ok(reply) => &reply.audit,
            Err(e) => &e.audit,
        }
    }

    /// Why the call's handler halted the loop, if it did.
    pub fn halted(&self) -> Option<&str> {
        self.audit().halted.as_deref()
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
        if let Ok(reply) = &self.outcome {
            if !reply.metadata.is_empty() {
                out["metadata"] = Value::Object(reply.metadata.clone());
            }
        }
        if let Some(reason) = self.halted() {
            out["halted"] = Value::String(reason.to_string());
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
    /// The call that halted the loop, if one did: its index in [`Turn::calls`]. The calls
    /// after it were not run.
    pub halted: Option<usize>,
}

impl Turn {
    /// Whether every call ran and none answered with an error.
    pub fn all_succeeded(&self) -> bool {
        self.calls.iter().all(TurnCall::succeeded)
    }

    /// `{"calls": [...], "replies": [...], "messages": [...]}`: each call with its outcome and
    /// audit, the reply to each, and the messages to append; with `"halted": {"id", "tool",
    /// "reason"}` when a call halted the loop.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "calls": self.calls.iter().map(TurnCall::to_json).collect::<Vec<_>>(),
            "replies": self.calls.iter().map(|c| c.reply.clone()).collect::<Vec<_>>(),
            "messages": self.messages,
        });
        if let Some(c) = self.halted.and_then(|i| self.calls.get(i)) {
            out["halted"] = json!({
                "id": c.call.id,
                "tool": c.call.name,
                "reason": c.halted(),
            });
        }
        out
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
    ///
    /// Each call's handler gets the call's id ([`RunOptions::call_id`]). A handler that halts
    /// the loop ([`super::CallContext::halt`]) stops the turn: its own call is answered as
    /// usual, and every later call of the response is not run, and is answered with an error
    /// saying that the loop was halted and why ([`CallOutcome::NotRun`]);
    /// [`Turn::halted`] points at the call that halted.
    pub async fn run_response(
        &self,
        provider: Provider,
        response: &Value,
        options: &RunOptions,
    ) -> Result<Turn, EnvelopeError> {
        let calls = provider.calls(response)?;
        let target = options.target.unwrap_or_else(|| provider.target());
        let mut out = Vec::with_capacity(calls.len());
        let mut halted: Option<usize> = None;
        for call in calls {
            if let Some(by) = halted.and_then(|i| out.get(i)) {
                let turn_call = not_run(provider, call, by);
                out.push(turn_call);
                continue;
            }
            let mut options = options.clone().target(target);
            options.call_id = call.id.as_ref().map(id_text);
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
            let turn_call = TurnCall {
                call,
                outcome,
                reply,
            };
            if turn_call.halted().is_some() {
                halted = Some(out.len());
            }
            out.push(turn_call);
        }
        let messages = provider.messages(out.iter().map(|c| c.reply.clone()).collect());
        Ok(Turn {
            provider,
            calls: out,
            messages,
            halted,
        })
    }
}

/// A call's id as text: a string as it is, another JSON value (an MCP number) as JSON.
fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A call not run because the call `by` halted the loop, answered with an error saying so.
fn not_run(provider: Provider, call: ToolCall, by: &TurnCall) -> TurnCall {
    let reason = by.halted().unwrap_or_default();
    let message = format!(
        "This call was not run: the call to `{}` halted the loop ({reason}).",
        by.call.name
    );
    let mut audit = Audit::new(&call.name);
    audit.call_id = call.id.as_ref().map(id_text);
    audit.outcome = CallOutcome::NotRun;
    audit.error = Some(message.clone());
    let reply = provider.reply(&call, &message, true);
    TurnCall {
        call,
        outcome: Ok(Reply {
            content: Value::String(message),
            is_error: true,
            metadata: serde_json::Map::new(),
            audit,
        }),
        reply,
    }
}
