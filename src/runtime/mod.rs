//! Running tool calls: handlers and the call policies of a tool's attributes.
//!
//! A [`Runtime`] holds a [`Toolset`], a [`Handler`] per tool, an optional [`Approver`] and a
//! [`Clock`]. [`Runtime::call`] runs one call through these steps, in order:
//!
//! 1. **Validation**, in the tool's mode (`@strict` / `@lax`, strict when neither; a call may
//!    choose), reading the arguments in the shape the call's target showed
//!    ([`Toolset::validator_for`]). Invalid arguments (and an unknown tool) follow
//!    [`OnInvalid`]: `Reply` answers the model with [`Invalid::message`] as an error result,
//!    `Raise` fails the call. The call's [`RunOptions::on_invalid`] wins, then the tool's
//!    `@on_invalid`, then `Reply`. The handler gets the normalized arguments.
//! 2. **Approval**, for a `@requires_approval` tool: the [`Approver`] is asked with the tool and
//!    the normalized arguments. Denied, or with no approver configured, the call is refused: the
//!    model is told so, and the handler never runs.
//! 3. **The cache** (`@cache(ttl)`, on `@read_only` tools): a call with the same normalized
//!    arguments as one that succeeded less than `ttl` ago (on the clock) gets that result, and
//!    the handler does not run; [`Audit::cache`] says whether it did. Only successful results
//!    are stored. The cache is bounded in entries and bytes ([`CacheLimits`],
//!    [`Runtime::with_cache_limits`]), least recently used first out.
//! 4. **The handler**, with a timeout per attempt: the call's own, else the one its handler was
//!    registered with, else the runtime's default; none by default.
//! 5. **Retries** (`@retry(times, wait, base, on)`): a failed attempt is run again, waiting on the
//!    clock between attempts. Each failure has a kind ([`ToolError::kind`]): the handler's own,
//!    or `timeout` (the attempt ran out of time), `panic`, `invalid-output` (a result that does
//!    not fit the output type). The tool's `@retry` policies are tried in source order and the
//!    first whose `on` names the kind applies (one without `on` applies to every kind); each
//!    policy runs its own count of up to `times` retries, and once the applying one is spent,
//!    the call fails (a later policy is not tried). A final error ([`ToolError::fatal`]), a
//!    cancelled call, invalid arguments and refusals are never retried.
//! 6. **`@on_error`**, after the last failed attempt: `suppress` answers the model with the
//!    error as an error result; `raise` fails the call. A tool without `@on_error` follows the
//!    runtime's default, [`OnError::Raise`] unless set with [`Runtime::with_on_error`]: that is
//!    the default of Phronomy's `on_error`, where the attribute comes from, so a failure is never
//!    hidden from the host unless someone chose so.
//! 7. **The output check**: a tool with `-> T` has the handler's result validated against `T`
//!    in strict mode; a result that does not fit is a failure of the attempt, named with its
//!    JSON pointer, and never passed on. The result passed on is normalized like arguments
//!    (declaration order, defaults filled).
//!
//! A call can be cancelled with a [`CancelToken`]. Every call, however it ends, yields an
//! [`Audit`]: on the [`Reply`], or on the [`CallError`].

mod audit;
mod cache;
mod cancel;
mod clock;
mod context;
mod handler;
mod policy;
mod running;
mod turn;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::emit::Target;
use crate::model::{OnError, Tool};
use crate::toolset::Toolset;
use crate::validate::{Arguments, CompileError, Invalid, Mode, OnInvalid, Validator};

pub use audit::{AppliedCoercion, Audit, CacheUse, CallOutcome};
pub use cache::CacheLimits;
pub use cancel::CancelToken;
pub use clock::{Clock, FakeClock, Sleep, SystemClock};
pub use context::CallContext;
pub use handler::{Approval, ApprovalRequest, Approver, BoxFuture, Handler, ToolError};
pub use running::ConcurrencyLimits;
pub use turn::{Turn, TurnCall};

use cache::ResultCache;
use policy::{race, retry_for, wait_before, Raced};

/// Runs the calls of a toolset's tools through their handlers and call policies (see the
/// [module documentation](self)). `Send` and `Sync`: share it between tasks (e.g. in an `Arc`).
///
/// ```
/// use futures::executor::block_on;
/// use serde_json::json;
/// use tooldef::runtime::{CallOutcome, Handler, Runtime, RunOptions, ToolError};
/// use tooldef::Toolset;
///
/// let tools = Toolset::from_source(r#"
/// /// Add two numbers.
/// @lax
/// tool add -> number { a: number, b?: number = 1 }
/// "#).unwrap();
///
/// let mut runtime = Runtime::new(tools);
/// runtime.register("add", Handler::new(|args| async move {
///     let (a, b) = (args["a"].as_f64(), args["b"].as_f64());
///     Ok::<_, ToolError>(json!(a.unwrap_or(0.0) + b.unwrap_or(0.0)))
/// })).unwrap();
///
/// // `b` is filled in with its default, and `"2"` read as 2 in lax mode.
/// let reply = block_on(runtime.call("add", r#"{"a": "2"}"#, RunOptions::default())).unwrap();
/// assert_eq!(reply.content, json!(3.0));
/// assert!(!reply.is_error);
/// assert_eq!(reply.audit.outcome, CallOutcome::Ok);
/// assert_eq!(reply.audit.coercions[0].path, "/a");
///
/// // Invalid arguments are answered with a message the model can act on.
/// let reply = block_on(runtime.call("add", r#"{"b": 2}"#, RunOptions::default())).unwrap();
/// assert!(reply.is_error);
/// assert_eq!(reply.audit.outcome, CallOutcome::Invalid);
///
/// // A misspelt name at registration is an error with a did-you-mean.
/// let err = runtime.register("ad", Handler::sync(|_| Ok(json!(0)))).unwrap_err();
/// assert_eq!(err.to_string(), "no tool named `ad`; did you mean `add`?");
/// ```
pub struct Runtime {
    toolset: Arc<Toolset>,
    handlers: HashMap<String, Registered>,
    approver: Option<Approver>,
    clock: Arc<dyn Clock>,
    timeout: Option<Duration>,
    on_error: OnError,
    cache: ResultCache,
    running: running::Running,
}

/// A registered handler, with the validator of its tool's output type.
struct Registered {
    handler: Handler,
    output: Option<Validator>,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut handled: Vec<&str> = self.handlers.keys().map(String::as_str).collect();
        handled.sort_unstable();
        f.debug_struct("Runtime")
            .field("tools", &self.toolset.len())
            .field("handlers", &handled)
            .field("approver", &self.approver)
            .field("timeout", &self.timeout)
            .field("on_error", &self.on_error)
            .field("cache", &self.cache.limits())
            .field("concurrency", &self.running.limits())
            .finish_non_exhaustive()
    }
}

/// The policy of one call.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The validation mode; `None` uses the tool's `@strict` / `@lax` (strict when neither).
    pub mode: Option<Mode>,
    /// What invalid arguments (or an unknown tool name) do. `None` follows the tool's
    /// `@on_invalid`, else [`OnInvalid::Reply`]; a call's own choice wins over the attribute.
    pub on_invalid: Option<OnInvalid>,
    /// The target the model was shown the tool for: its arguments are read in that shape
    /// ([`Toolset::validator_for`]). `None`: the source's shape.
    pub target: Option<Target>,
    /// The timeout of each attempt, overriding the handler's and the runtime's.
    pub timeout: Option<Duration>,
    /// A token that cancels the call.
    pub cancel: Option<CancelToken>,
    /// The provider's id of the call, passed on to the handler ([`CallContext::call_id`]) and
    /// kept in the audit.
    pub call_id: Option<String>,
}

impl RunOptions {
    /// The same options with a mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// The same options with a policy for invalid arguments.
    pub fn on_invalid(mut self, on_invalid: OnInvalid) -> Self {
        self.on_invalid = Some(on_invalid);
        self
    }

    /// The same options with a target.
    pub fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }

    /// The same options with a timeout for each attempt.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The same options with a cancel token.
    pub fn cancel(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// The same options with the provider's id of the call.
    pub fn call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = Some(id.into());
        self
    }
}

/// What a call gives the model: the handler's result, or a message marked as an error
/// (invalid arguments, a refusal, a suppressed failure).
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The result: the handler's JSON, or a message (a JSON string) when `is_error`.
    pub content: Value,
    /// Whether the content reports a problem rather than a result (MCP's `isError`).
    pub is_error: bool,
    /// What the handler attached to its result ([`CallContext::set_metadata`]), in the order
    /// it was set; empty when it attached nothing.
    pub metadata: Map<String, Value>,
    /// The call's record.
    pub audit: Audit,
}

/// A call that failed for its caller, not for the model: what went wrong, and the call's
/// record.
#[derive(Debug)]
pub struct CallError {
    /// What went wrong.
    pub kind: CallErrorKind,
    /// The call's record.
    pub audit: Box<Audit>,
}

/// What made a call fail.
#[derive(Debug)]
pub enum CallErrorKind {
    /// The toolset has no tool of that name ([`OnInvalid::Raise`]).
    UnknownTool {
        /// The name called.
        name: String,
        /// A close name, if any.
        suggestion: Option<String>,
    },
    /// The arguments are invalid ([`OnInvalid::Raise`]).
    Invalid(Box<Invalid>),
    /// The tool has no handler registered.
    NoHandler {
        /// The tool.
        tool: String,
    },
    /// No validator for the call's target (the target refuses the tool).
    Target(CompileError),
    /// The handler failed on its last attempt, and the tool's `@on_error` is `raise`.
    Failed(ToolError),
    /// The last attempt ran out of time, and the tool's `@on_error` is `raise`.
    TimedOut {
        /// The timeout of the attempt.
        after: Duration,
    },
    /// The call was cancelled.
    Cancelled,
}

impl fmt::Display for CallErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallErrorKind::UnknownTool { name, suggestion } => {
                write!(f, "{}", unknown_tool(name, suggestion.as_deref()))
            }
            CallErrorKind::Invalid(invalid) => write!(f, "{invalid}"),
            CallErrorKind::NoHandler { tool } => {
                write!(f, "no handler is registered for tool `{tool}`")
            }
            CallErrorKind::Target(e) => write!(f, "{e}"),
            CallErrorKind::Failed(e) => write!(f, "{e}"),
            CallErrorKind::TimedOut { after } => write!(f, "timed out after {after:?}"),
            CallErrorKind::Cancelled => f.write_str("the call was cancelled"),
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            CallErrorKind::Failed(e) => write!(f, "tool `{}` failed: {e}", self.audit.tool),
            CallErrorKind::TimedOut { after } => {
                write!(f, "tool `{}` timed out after {after:?}", self.audit.tool)
            }
            CallErrorKind::Cancelled => {
                write!(f, "the call to `{}` was cancelled", self.audit.tool)
            }
            kind => write!(f, "{kind}"),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            CallErrorKind::Invalid(e) => Some(e.as_ref()),
            CallErrorKind::Target(e) => Some(e),
            CallErrorKind::Failed(e) => Some(e),
            _ => None,
        }
    }
}

fn unknown_tool(name: &str, suggestion: Option<&str>) -> String {
    CompileError::UnknownTool {
        name: name.to_string(),
        suggestion: suggestion.map(str::to_string),
    }
    .to_string()
}

/// How one call ended, before it is turned into a [`Reply`] or a [`CallError`].
type Ended = Result<(Value, bool), CallErrorKind>;

/// Why an attempt failed.
enum Failure {
    Error(ToolError),
    TimedOut(Duration),
}

impl Failure {
    /// The kind `@retry(on: [...])` matches.
    fn kind(&self) -> &str {
        match self {
            Failure::Error(e) => e.kind(),
            Failure::TimedOut(_) => ToolError::TIMEOUT,
        }
    }

    /// Whether no policy may retry it.
    fn is_fatal(&self) -> bool {
        matches!(self, Failure::Error(e) if e.is_fatal())
    }
}

impl Runtime {
    /// A runtime for `toolset`, with no handlers, no approver, the [`SystemClock`], no timeout,
    /// and `@on_error(raise)` for tools that do not say.
    pub fn new(toolset: impl Into<Arc<Toolset>>) -> Runtime {
        Runtime {
            toolset: toolset.into(),
            handlers: HashMap::new(),
            approver: None,
            clock: Arc::new(SystemClock),
            timeout: None,
            on_error: OnError::Raise,
            cache: ResultCache::new(CacheLimits::default()),
            running: running::Running::default(),
        }
    }

    /// The same runtime with other bounds for the results of `@cache` tools (by default
    /// [`CacheLimits::default`]), and an empty cache.
    pub fn with_cache_limits(mut self, limits: CacheLimits) -> Runtime {
        self.cache = ResultCache::new(limits);
        self
    }

    /// The same runtime with caps on the calls whose handlers run at once, in all and per tool
    /// (none by default). A call past a cap is answered at once that the server is busy (its
    /// outcome [`CallOutcome::Busy`]); it is not queued.
    pub fn with_concurrency(mut self, limits: ConcurrencyLimits) -> Runtime {
        self.running = running::Running::new(limits);
        self
    }

    /// The same runtime on another clock (e.g. a [`FakeClock`] in tests).
    pub fn with_clock(mut self, clock: impl Clock) -> Runtime {
        self.clock = Arc::new(clock);
        self
    }

    /// The same runtime with a default timeout for each attempt of every call.
    pub fn with_timeout(mut self, timeout: Duration) -> Runtime {
        self.timeout = Some(timeout);
        self
    }

    /// The same runtime with another `@on_error` for tools that do not declare one.
    pub fn with_on_error(mut self, on_error: OnError) -> Runtime {
        self.on_error = on_error;
        self
    }

    /// The same runtime with an approver for `@requires_approval` tools.
    pub fn with_approver(mut self, approver: Approver) -> Runtime {
        self.approver = Some(approver);
        self
    }

    /// Registers the handler of the tool called `name`, replacing any earlier one. Fails for a
    /// name the toolset does not have (with a did-you-mean), and when the tool's output type
    /// does not compile.
    pub fn register(&mut self, name: &str, handler: Handler) -> Result<&mut Runtime, CompileError> {
        let (module, tool) = self
            .toolset
            .tool(name)
            .ok_or_else(|| CompileError::UnknownTool {
                name: name.to_string(),
                suggestion: self.toolset.suggest(name).map(str::to_string),
            })?;
        let output = Validator::for_output(module, tool).transpose()?;
        self.handlers
            .insert(name.to_string(), Registered { handler, output });
        Ok(self)
    }

    /// The toolset.
    pub fn toolset(&self) -> &Toolset {
        &self.toolset
    }

    /// Whether the tool called `name` has a handler.
    pub fn has_handler(&self, name: &str) -> bool {
        self.handlers.contains_key(name)
    }

    /// The tools of the set without a handler, in source order.
    pub fn unhandled(&self) -> impl Iterator<Item = &str> {
        self.toolset
            .names()
            .filter(|n| !self.handlers.contains_key(*n))
    }

    /// Runs a call of the tool called `name` with `arguments` (JSON text or a value), through
    /// the steps of the [module documentation](self). `Ok` holds what the model is told (a
    /// result, or an error message for it); `Err` what the caller must handle. Both carry the
    /// call's [`Audit`].
    pub async fn call<'a>(
        &self,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
        options: RunOptions,
    ) -> Result<Reply, CallError> {
        let started = self.clock.now();
        let mut audit = Audit::new(name);
        audit.target = options.target.map(Target::as_str);
        audit.call_id.clone_from(&options.call_id);
        let mut metadata = Map::new();
        let ended = self
            .run(name, arguments.into(), &options, &mut audit, &mut metadata)
            .await;
        audit.duration = self.clock.now().saturating_duration_since(started);
        match ended {
            Ok((content, is_error)) => Ok(Reply {
                content,
                is_error,
                metadata,
                audit,
            }),
            Err(kind) => Err(CallError {
                kind,
                audit: Box::new(audit),
            }),
        }
    }

    async fn run(
        &self,
        name: &str,
        arguments: Arguments<'_>,
        options: &RunOptions,
        audit: &mut Audit,
        metadata: &mut Map<String, Value>,
    ) -> Ended {
        let cancel = options.cancel.as_ref();
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return cancelled(audit);
        }
        let Some((tool, validator)) = self.toolset.known(name, options.target) else {
            let suggestion = self.toolset.suggest(name).map(str::to_string);
            let message = unknown_tool(name, suggestion.as_deref());
            // No tool, no `@on_invalid`: the call's choice, else `reply`.
            return match options.on_invalid.unwrap_or_default() {
                OnInvalid::Reply => end(audit, CallOutcome::Invalid, message),
                OnInvalid::Raise => {
                    end_err(audit, CallOutcome::Invalid, message);
                    Err(CallErrorKind::UnknownTool {
                        name: name.to_string(),
                        suggestion,
                    })
                }
            };
        };
        let Some(registered) = self.handlers.get(name) else {
            end_err(
                audit,
                CallOutcome::Error,
                format!("no handler is registered for tool `{name}`"),
            );
            return Err(CallErrorKind::NoHandler {
                tool: name.to_string(),
            });
        };
        let validator = match validator {
            Ok(v) => v,
            Err(e) => {
                end_err(audit, CallOutcome::Error, e.to_string());
                return Err(CallErrorKind::Target(e));
            }
        };
        let mode = options.mode.unwrap_or(validator.default_mode());
        audit.mode = Some(mode);
        let arguments = match validator.validate(arguments, mode) {
            Ok(valid) => {
                audit.coercions = valid.coercions.iter().map(Into::into).collect();
                audit.repairs.clone_from(&valid.repairs);
                valid.into_arguments()
            }
            Err(invalid) => {
                audit.coercions = invalid.coercions.iter().map(Into::into).collect();
                let message = invalid.message();
                return match validator.on_invalid(options.on_invalid) {
                    OnInvalid::Reply => end(audit, CallOutcome::Invalid, message),
                    OnInvalid::Raise => {
                        end_err(audit, CallOutcome::Invalid, message);
                        Err(CallErrorKind::Invalid(Box::new(invalid)))
                    }
                };
            }
        };
        if tool.requires_approval {
            let Some(approver) = &self.approver else {
                let message = format!(
                    "Tool `{name}` requires approval and no approver is configured, so it was \
                     not run."
                );
                return end(audit, CallOutcome::Refused, message);
            };
            let request = ApprovalRequest {
                tool: name.to_string(),
                arguments: arguments.clone(),
            };
            match race(approver.ask(request), None, cancel).await {
                Raced::Done(Approval::Approve) => audit.approved = Some(true),
                Raced::Done(Approval::Deny { reason }) => {
                    audit.approved = Some(false);
                    let message = match reason {
                        Some(reason) => format!("The call to `{name}` was denied: {reason}"),
                        None => format!("The call to `{name}` was denied."),
                    };
                    return end(audit, CallOutcome::Refused, message);
                }
                Raced::TimedOut | Raced::Cancelled => return cancelled(audit),
            }
        }
        // `@cache`: looked up once the call may run (approved), so a cached result is never
        // handed out for a call the approver denies.
        let cached = tool.cache.map(|c| (c.ttl, cache::key(name, &arguments)));
        if let Some((_, key)) = &cached {
            if let Some(result) = self.cache.get(key, self.clock.now()) {
                audit.cache = Some(CacheUse::Hit);
                audit.outcome = CallOutcome::Ok;
                return Ok((result, false));
            }
            audit.cache = Some(CacheUse::Miss);
        }
        // The handler's place among the calls running, kept until the call ends (or is
        // dropped); past a cap the call is answered at once, not queued.
        let _place = match self.running.enter(name) {
            Ok(place) => place,
            Err(message) => return end(audit, CallOutcome::Busy, message),
        };
        let ended = self
            .attempts(tool, registered, arguments, options, audit, metadata)
            .await;
        if let (Some((ttl, key)), Ok((result, false))) = (cached, &ended) {
            // A result that halted the loop is not served again: a hit would not halt it.
            if audit.outcome == CallOutcome::Ok && audit.halted.is_none() {
                self.cache.put(key, result.clone(), self.clock.now(), ttl);
            }
        }
        ended
    }

    /// Runs the handler until an attempt succeeds or the retries are spent, then applies
    /// `@on_error`. The tool is the one the call named (`tool.name` is the call's name).
    async fn attempts(
        &self,
        tool: &Tool,
        registered: &Registered,
        arguments: Value,
        options: &RunOptions,
        audit: &mut Audit,
        metadata: &mut Map<String, Value>,
    ) -> Ended {
        let name = tool.name.as_str();
        let cancel = options.cancel.as_ref();
        let timeout = options
            .timeout
            .or(registered.handler.timeout())
            .or(self.timeout);
        let stoppable = timeout.is_some() || cancel.is_some();
        let clock: &dyn Clock = &*self.clock;
        // How many retries each `@retry` has made.
        let mut retried = vec![0u32; tool.retry.len()];
        let failure = loop {
            audit.attempts += 1;
            let deadline = timeout.and_then(|t| clock.now().checked_add(t));
            let cx = CallContext::new(
                options.call_id.as_deref(),
                name,
                audit.attempts,
                deadline,
                Arc::clone(&self.clock),
            );
            let run = registered
                .handler
                .run(arguments.clone(), cx.clone(), stoppable);
            let raced = race(run, timeout.map(|t| (clock, t)), cancel).await;
            if !matches!(raced, Raced::Done(_)) {
                // The call stops waiting: tell whatever the handler left running.
                cx.cancel_token().cancel();
            }
            let told = cx.take_told();
            *metadata = told.metadata;
            let halted = told.halt.is_some();
            if told.halt.is_some() {
                audit.halted = told.halt;
            }
            let failure = match raced {
                Raced::Done(Ok(result)) => match check_output(registered.output.as_ref(), result) {
                    Ok(result) => {
                        audit.outcome = CallOutcome::Ok;
                        audit.error_kind = None;
                        return Ok((result, false));
                    }
                    Err(problem) => {
                        Failure::Error(ToolError::new(problem).with_kind(ToolError::INVALID_OUTPUT))
                    }
                },
                Raced::Done(Err(e)) if e.kind() == ToolError::CANCELLED => return cancelled(audit),
                Raced::Done(Err(e)) => Failure::Error(e),
                Raced::TimedOut => Failure::TimedOut(timeout.unwrap_or_default()),
                Raced::Cancelled => return cancelled(audit),
            };
            if halted {
                audit.error_kind = Some(failure.kind().to_string());
                break failure;
            }
            audit.error_kind = Some(failure.kind().to_string());
            let Some((i, retry)) = retry_for(&tool.retry, &failure, &retried) else {
                break failure;
            };
            retried[i] += 1;
            let wait = wait_before(retry, retried[i]);
            if !wait.is_zero() {
                if let Raced::Cancelled = race(clock.sleep(wait), None, cancel).await {
                    return cancelled(audit);
                }
            }
        };
        let (outcome, message, kind) = match failure {
            Failure::Error(e) => (
                CallOutcome::Error,
                format!("Tool `{name}` failed: {e}"),
                CallErrorKind::Failed(e),
            ),
            Failure::TimedOut(after) => (
                CallOutcome::TimedOut,
                format!("Tool `{name}` did not finish within {after:?}."),
                CallErrorKind::TimedOut { after },
            ),
        };
        match tool.on_error.unwrap_or(self.on_error) {
            OnError::Suppress => end(audit, outcome, message),
            OnError::Raise => {
                end_err(audit, outcome, message);
                Err(kind)
            }
        }
    }
}

/// The handler's result checked against the tool's output type: normalized when it fits, and
/// otherwise every problem in words, each at its JSON pointer.
fn check_output(output: Option<&Validator>, result: Value) -> Result<Value, String> {
    let Some(validator) = output else {
        return Ok(result);
    };
    let normalized = match validator.validate_value(&result, Mode::Strict) {
        Ok(valid) => match valid.arguments {
            Cow::Owned(normalized) => Some(normalized),
            Cow::Borrowed(_) => None,
        },
        Err(invalid) => {
            let problems: Vec<String> = invalid
                .errors
                .iter()
                .zip(invalid.messages())
                .map(|(e, message)| {
                    let at = if e.path.is_empty() {
                        "the top level"
                    } else {
                        &e.path
                    };
                    format!("at {at}: {message}")
                })
                .collect();
            return Err(format!(
                "its result does not fit its output type `{}`: {}",
                validator.signature(),
                problems.join("; ")
            ));
        }
    };
    Ok(normalized.unwrap_or(result))
}

/// Ends the call with a message for the model, marked as an error.
fn end(audit: &mut Audit, outcome: CallOutcome, message: String) -> Ended {
    audit.outcome = outcome;
    audit.error = Some(message.clone());
    Ok((Value::String(message), true))
}

/// Records how a call that fails for its caller ended.
fn end_err(audit: &mut Audit, outcome: CallOutcome, message: String) {
    audit.outcome = outcome;
    audit.error = Some(message);
}

fn cancelled(audit: &mut Audit) -> Ended {
    end_err(
        audit,
        CallOutcome::Cancelled,
        "the call was cancelled".into(),
    );
    Err(CallErrorKind::Cancelled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runtime_and_its_calls_can_move_between_threads() {
        fn check<T: Send + Sync>() {}
        check::<Runtime>();
        fn sendable<T: Send>(_: &T) {}
        let runtime = Runtime::new(Toolset::from_source("/// T.\ntool t {}").unwrap());
        let call = runtime.call("t", "{}", RunOptions::default());
        sendable(&call);
    }
}
