//! What a handler knows of its call, and what it can tell the runtime besides its result.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::cancel::CancelToken;
use super::clock::Clock;

/// The context of one attempt of a call, given to handlers made with
/// [`Handler::with_context`](super::Handler::with_context) or
/// [`Handler::sync_with_context`](super::Handler::sync_with_context). Clones share it.
///
/// ```
/// use futures::executor::block_on;
/// use serde_json::json;
/// use tooldef::runtime::{Handler, RunOptions, Runtime, ToolError};
/// use tooldef::Toolset;
///
/// let tools = Toolset::from_source("/// Finish the task.\ntool done { summary: string }").unwrap();
/// let mut runtime = Runtime::new(tools);
/// runtime.register("done", Handler::sync_with_context(|args, cx| {
///     if cx.is_cancelled() {
///         return Err(ToolError::cancelled());
///     }
///     cx.set_metadata("chars", json!(args["summary"].as_str().map_or(0, str::len)));
///     cx.halt("the task is done");
///     Ok(json!("ok"))
/// })).unwrap();
///
/// let options = RunOptions::default().call_id("call_1");
/// let reply = block_on(runtime.call("done", r#"{"summary": "all"}"#, options)).unwrap();
/// assert_eq!(reply.audit.halted.as_deref(), Some("the task is done"));
/// assert_eq!(reply.audit.call_id.as_deref(), Some("call_1"));
/// assert_eq!(reply.metadata["chars"], 3);
/// ```
#[derive(Clone)]
pub struct CallContext {
    call_id: Option<Arc<str>>,
    tool: Arc<str>,
    attempt: u32,
    cancel: CancelToken,
    deadline: Option<Instant>,
    clock: Arc<dyn Clock>,
    told: Arc<Mutex<Told>>,
}

/// What the handler told the runtime.
#[derive(Debug, Default)]
pub(crate) struct Told {
    pub(crate) halt: Option<String>,
    pub(crate) metadata: Map<String, Value>,
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallContext")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("attempt", &self.attempt)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl CallContext {
    pub(crate) fn new(
        call_id: Option<&str>,
        tool: &str,
        attempt: u32,
        deadline: Option<Instant>,
        clock: Arc<dyn Clock>,
    ) -> CallContext {
        CallContext {
            call_id: call_id.map(Into::into),
            tool: tool.into(),
            attempt,
            cancel: CancelToken::new(),
            deadline,
            clock,
            told: Arc::default(),
        }
    }

    /// The provider's id of the call ([`RunOptions::call_id`](super::RunOptions::call_id)), if
    /// the caller gave one.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Which attempt this is, from 1.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// A token cancelled when the call stops waiting for this attempt: the call was cancelled,
    /// or the attempt ran out of time. Hand it on to work that should stop with the attempt.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// When the attempt runs out of time, on the runtime's clock; `None` without a timeout.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The time left before [`CallContext::deadline`] (zero once it has passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(self.clock.now()))
    }

    /// Whether the attempt should stop: its token is cancelled, or its deadline has passed. A
    /// handler that sees it can return [`ToolError::cancelled`](super::ToolError::cancelled);
    /// whatever it returns, the call is not waiting for it any more.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled() || self.deadline.is_some_and(|d| self.clock.now() >= d)
    }

    /// Halts the loop: once this call ends, [`Runtime::run_response`] runs no further call of
    /// the same response (each gets a reply saying so), the call's [`Audit::halted`] holds
    /// `reason`, and a failed attempt is not retried. The last call wins.
    ///
    /// [`Runtime::run_response`]: super::Runtime::run_response
    /// [`Audit::halted`]: super::Audit::halted
    pub fn halt(&self, reason: impl Into<String>) {
        self.told().halt = Some(reason.into());
    }

    /// Attaches `value` under `key` to the call's result ([`Reply::metadata`]); a later value
    /// for the same key replaces the earlier one. Only the last attempt's metadata is kept,
    /// and a result served from the cache has none.
    ///
    /// [`Reply::metadata`]: super::Reply::metadata
    pub fn set_metadata(&self, key: impl Into<String>, value: Value) {
        self.told().metadata.insert(key.into(), value);
    }

    fn told(&self) -> MutexGuard<'_, Told> {
        self.told.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the handler told, taken out of the context.
    pub(crate) fn take_told(&self) -> Told {
        std::mem::take(&mut *self.told())
    }
}
