//! The record every call leaves.

use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::validate::{Coercion, CoercionRule, Mode, Repair};

/// What happened in one call, for logs: serialize it (e.g. one JSON line per call).
///
/// ```json
/// {"tool":"get_weather","mode":"lax","target":null,"coercions":[{"path":"/days","rule":"integer-from-string"}],
///  "repairs":[{"kind":"trailing-comma","line":1,"column":24}],"approved":null,"attempts":1,"duration_ms":12.5,"outcome":"ok"}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Audit {
    /// The tool called, as the call named it.
    pub tool: String,
    /// The provider's id of the call, when the caller gave one ([`super::RunOptions::call_id`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The mode the arguments were validated in; `None` when they were not (an unknown tool,
    /// a tool without a handler).
    pub mode: Option<Mode>,
    /// The target the arguments were read for, when the call named one.
    pub target: Option<&'static str>,
    /// The coercions lax mode applied, in document order (their values are left out of the
    /// record on purpose: arguments may be private).
    pub coercions: Vec<AppliedCoercion>,
    /// The repairs lax mode's lenient reading made to text that was not JSON (kind and
    /// position), in text order.
    pub repairs: Vec<Repair>,
    /// For a `@requires_approval` tool with an approver: whether the call was approved.
    pub approved: Option<bool>,
    /// How many times the handler was run (0 when it never was).
    pub attempts: u32,
    /// From the start of the call to its end, on the runtime's clock (serialized as
    /// `duration_ms`, in milliseconds).
    #[serde(rename = "duration_ms", serialize_with = "milliseconds")]
    pub duration: Duration,
    /// How the call ended.
    pub outcome: CallOutcome,
    /// What went wrong, in words, when the outcome is not `ok`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The kind of the last failed attempt ([`super::ToolError::kind`]: `timeout`, `panic`,
    /// `invalid-output` or the handler's own), when the call ended in a handler's failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// For a `@cache` tool whose call reached the cache: whether its result came from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheUse>,
    /// Why the handler halted the loop ([`super::CallContext::halt`]), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halted: Option<String>,
}

impl Audit {
    pub(crate) fn new(tool: &str) -> Audit {
        Audit {
            tool: tool.to_string(),
            call_id: None,
            mode: None,
            target: None,
            coercions: Vec::new(),
            repairs: Vec::new(),
            approved: None,
            attempts: 0,
            duration: Duration::ZERO,
            outcome: CallOutcome::Error,
            error: None,
            error_kind: None,
            cache: None,
            halted: None,
        }
    }
}

fn milliseconds<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64() * 1000.0)
}

/// A coercion as the audit records it: where, and by which rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AppliedCoercion {
    /// A JSON pointer into the arguments.
    pub path: String,
    /// The rule (serialized by its stable name, e.g. `integer-from-string`).
    pub rule: CoercionRule,
}

impl From<&Coercion> for AppliedCoercion {
    fn from(c: &Coercion) -> Self {
        AppliedCoercion {
            path: c.path.clone(),
            rule: c.rule,
        }
    }
}

/// What the result cache did for a call of a `@cache` tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheUse {
    /// The result came from the cache; the handler did not run.
    Hit,
    /// Nothing fresh was stored for these arguments; the handler ran (and its result, if it
    /// succeeded, was stored).
    Miss,
}

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// The handler returned a result that fits the tool's output type.
    Ok,
    /// The arguments were invalid, or the tool unknown; the handler did not run.
    Invalid,
    /// The call was refused (denied, or no approver for a tool that needs one); the handler did
    /// not run.
    Refused,
    /// The handler failed (an error, or a result that does not fit its output type) on its last
    /// attempt, or the runtime could not run it.
    Error,
    /// The last attempt ran out of time.
    TimedOut,
    /// The caller cancelled the call.
    Cancelled,
    /// The call was not run: as many calls as the runtime's [`super::ConcurrencyLimits`] allow
    /// were running.
    Busy,
    /// The call was not run: an earlier call of the same response halted the loop
    /// ([`super::CallContext::halt`]).
    NotRun,
}
