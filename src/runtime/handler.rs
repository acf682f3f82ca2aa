//! What runs a tool: handlers, their errors, and the approver of calls that need approval.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::Value;

use super::context::CallContext;

/// A boxed future that can move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A failure of a tool's handler. Its message is what the model is told when the tool's
/// `@on_error` is `suppress`.
///
/// Every error has a **kind**, a short name that `@retry(on: [...])` matches: one the handler
/// chooses ([`ToolError::with_kind`], e.g. `unavailable`), else [`ToolError::ERROR`]. The
/// runtime gives its own failures the built-in kinds [`ToolError::TIMEOUT`],
/// [`ToolError::PANIC`] and [`ToolError::INVALID_OUTPUT`]. An error can also be **final**
/// ([`ToolError::fatal`]): no `@retry` runs the call again, whatever its kind.
///
/// ```
/// use tooldef::runtime::ToolError;
///
/// let e = ToolError::new("the index is rebuilding").with_kind("unavailable");
/// assert_eq!(e.kind(), "unavailable");
/// assert!(!e.is_fatal());
/// let e = ToolError::new("no such account").fatal();
/// assert_eq!(e.kind(), ToolError::ERROR);
/// assert!(e.is_fatal());
/// ```
#[derive(Clone, Debug)]
pub struct ToolError {
    message: String,
    kind: Option<Arc<str>>,
    fatal: bool,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl ToolError {
    /// The kind of an error whose handler did not choose one.
    pub const ERROR: &'static str = "error";
    /// The kind of an attempt that ran out of time.
    pub const TIMEOUT: &'static str = "timeout";
    /// The kind of a handler that panicked.
    pub const PANIC: &'static str = "panic";
    /// The kind of a result that does not fit the tool's output type.
    pub const INVALID_OUTPUT: &'static str = "invalid-output";
    /// The kind of a handler that stopped because its call was cancelled
    /// ([`ToolError::cancelled`]); such a call ends as cancelled, and is never retried.
    pub const CANCELLED: &'static str = "cancelled";

    /// An error with a message.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            kind: None,
            fatal: false,
            source: None,
        }
    }

    /// An error from another error, keeping it as the source; the message is its `Display`.
    pub fn from_error(error: impl std::error::Error + Send + Sync + 'static) -> ToolError {
        ToolError {
            message: error.to_string(),
            kind: None,
            fatal: false,
            source: Some(Arc::new(error)),
        }
    }

    /// The error a handler returns when it sees that its call was cancelled
    /// ([`CallContext::is_cancelled`](super::CallContext::is_cancelled)).
    pub fn cancelled() -> ToolError {
        ToolError::new("the call was cancelled").with_kind(ToolError::CANCELLED)
    }

    /// The same error with a kind, a short name such as `unavailable` or `rate-limited`, for
    /// `@retry(on: [...])` to match.
    pub fn with_kind(mut self, kind: impl Into<String>) -> ToolError {
        self.kind = Some(kind.into().into());
        self
    }

    /// The same error, final: no `@retry` runs its call again.
    pub fn fatal(mut self) -> ToolError {
        self.fatal = true;
        self
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The kind: the one given with [`ToolError::with_kind`], else [`ToolError::ERROR`].
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or(ToolError::ERROR)
    }

    /// Whether the error is final ([`ToolError::fatal`]).
    pub fn is_fatal(&self) -> bool {
        self.fatal
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        ToolError::from_error(error)
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        ToolError::from_error(error)
    }
}

type AsyncFn = dyn Fn(Value, CallContext) -> BoxFuture<Result<Value, ToolError>> + Send + Sync;
type SyncFn = dyn Fn(Value, &CallContext) -> Result<Value, ToolError> + Send + Sync;

/// The code that runs a tool: it gets the normalized arguments (defaults filled, coercions
/// applied) and returns the tool's result as JSON, or an error. A handler made with
/// [`Handler::with_context`] or [`Handler::sync_with_context`] also gets the attempt's
/// [`CallContext`]: the call's id, its cancellation and deadline, and a way to halt the loop or
/// attach metadata to the result.
///
/// A handler that panics fails its attempt with a [`ToolError`] ("the handler panicked: …"),
/// as an error it returned would.
#[derive(Clone)]
pub struct Handler {
    run: Run,
    timeout: Option<Duration>,
}

#[derive(Clone)]
enum Run {
    Async(Arc<AsyncFn>),
    Sync(Arc<SyncFn>),
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.run {
            Run::Async(_) => "async",
            Run::Sync(_) => "sync",
        };
        f.debug_struct("Handler")
            .field("kind", &kind)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Handler {
    /// An async handler. Stopping it (a timeout, a cancellation) drops its future.
    pub fn new<F, Fut>(handler: F) -> Handler
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        Handler {
            run: Run::Async(Arc::new(move |args, _| Box::pin(handler(args)))),
            timeout: None,
        }
    }

    /// An async handler that gets the attempt's [`CallContext`]. Stopping it drops its future,
    /// and cancels [`CallContext::cancel_token`] for whatever it handed the token to.
    pub fn with_context<F, Fut>(handler: F) -> Handler
    where
        F: Fn(Value, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        Handler {
            run: Run::Async(Arc::new(move |args, cx| Box::pin(handler(args, cx)))),
            timeout: None,
        }
    }

    /// A blocking handler that gets the attempt's [`CallContext`], run as [`Handler::sync`]
    /// runs. When the call stops waiting for it (a timeout, a cancellation), the context says
    /// so ([`CallContext::is_cancelled`]): a handler that looks now and then can stop early,
    /// e.g. with [`ToolError::cancelled`].
    pub fn sync_with_context<F>(handler: F) -> Handler
    where
        F: Fn(Value, &CallContext) -> Result<Value, ToolError> + Send + Sync + 'static,
    {
        Handler {
            run: Run::Sync(Arc::new(handler)),
            timeout: None,
        }
    }

    /// A blocking handler. When its call can be stopped (it has a timeout or a cancel token),
    /// it runs on a thread of its own, and stopping the call stops the waiting, not the thread:
    /// the thread runs the handler to its end and its result is thrown away. Otherwise it runs
    /// in place, on the thread that polls the call.
    pub fn sync<F>(handler: F) -> Handler
    where
        F: Fn(Value) -> Result<Value, ToolError> + Send + Sync + 'static,
    {
        Handler {
            run: Run::Sync(Arc::new(move |args, _: &CallContext| handler(args))),
            timeout: None,
        }
    }

    /// The same handler with a timeout for each attempt, in place of the runtime's default; a
    /// call's own timeout overrides it.
    pub fn with_timeout(mut self, timeout: Duration) -> Handler {
        self.timeout = Some(timeout);
        self
    }

    /// The timeout set with [`Handler::with_timeout`].
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// One run of the handler. `stoppable`: whether the caller may stop waiting for it (then a
    /// sync handler runs on its own thread).
    pub(crate) fn run(
        &self,
        args: Value,
        cx: CallContext,
        stoppable: bool,
    ) -> BoxFuture<Result<Value, ToolError>> {
        match &self.run {
            Run::Async(f) => {
                let f = Arc::clone(f);
                // Making the future runs the closure's code before its first await: a panic
                // there is caught too.
                match catch_unwind(AssertUnwindSafe(|| f(args, cx))) {
                    Ok(future) => Box::pin(CatchPanic { future }),
                    Err(panic) => Box::pin(std::future::ready(Err(panicked(panic)))),
                }
            }
            Run::Sync(f) if !stoppable => {
                let result = catch_unwind(AssertUnwindSafe(|| f(args, &cx)))
                    .unwrap_or_else(|p| Err(panicked(p)));
                Box::pin(std::future::ready(result))
            }
            Run::Sync(f) => {
                let f = Arc::clone(f);
                let slot = Arc::new(Slot::default());
                let filled = Arc::clone(&slot);
                let spawned = std::thread::Builder::new()
                    .name("tooldef-handler".into())
                    .spawn(move || {
                        let result = catch_unwind(AssertUnwindSafe(|| f(args, &cx)))
                            .unwrap_or_else(|p| Err(panicked(p)));
                        filled.fill(result);
                    });
                match spawned {
                    Ok(_) => Box::pin(SlotFuture(slot)),
                    Err(e) => Box::pin(std::future::ready(Err(ToolError::new(format!(
                        "cannot start a thread for the handler: {e}"
                    ))))),
                }
            }
        }
    }
}

/// The error of a handler that panicked.
fn panicked(panic: Box<dyn Any + Send>) -> ToolError {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    match text {
        Some(text) => ToolError::new(format!("the handler panicked: {text}")),
        None => ToolError::new("the handler panicked"),
    }
    .with_kind(ToolError::PANIC)
}

/// An async handler's future, with its panics turned into errors.
struct CatchPanic {
    future: BoxFuture<Result<Value, ToolError>>,
}

impl Future for CatchPanic {
    type Output = Result<Value, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.future.as_mut();
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(panic) => Poll::Ready(Err(panicked(panic))),
        }
    }
}

/// Where a sync handler's thread leaves its result.
#[derive(Default)]
struct Slot {
    state: Mutex<SlotState>,
}

/// The result once there is one, and the waker of the call waiting for it.
#[derive(Default)]
struct SlotState {
    result: Option<Result<Value, ToolError>>,
    waker: Option<Waker>,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn fill(&self, result: Result<Value, ToolError>) {
        let waker = {
            let mut state = self.lock();
            state.result = Some(result);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

struct SlotFuture(Arc<Slot>);

impl Future for SlotFuture {
    type Output = Result<Value, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.0.lock();
        match state.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A call that waits for approval: the tool and its normalized arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    /// The tool's name.
    pub tool: String,
    /// The arguments the handler will get if the call is approved.
    pub arguments: Value,
}

/// The approver's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    /// Run the call.
    Approve,
    /// Do not run it; the reason, if any, is passed on to the model.
    Deny {
        /// Why, in words.
        reason: Option<String>,
    },
}

impl Approval {
    /// A denial without a reason.
    pub fn deny() -> Approval {
        Approval::Deny { reason: None }
    }

    /// A denial with a reason.
    pub fn deny_because(reason: impl Into<String>) -> Approval {
        Approval::Deny {
            reason: Some(reason.into()),
        }
    }
}

type AsyncApprove = dyn Fn(ApprovalRequest) -> BoxFuture<Approval> + Send + Sync;
type SyncApprove = dyn Fn(&ApprovalRequest) -> Approval + Send + Sync;

/// The host's approver of the calls of `@requires_approval` tools. It is asked after the
/// arguments are validated and before the handler runs; no timeout applies to it (a person may
/// take their time), but a cancellation does.
#[derive(Clone)]
pub struct Approver(Approve);

#[derive(Clone)]
enum Approve {
    Async(Arc<AsyncApprove>),
    Sync(Arc<SyncApprove>),
}

impl fmt::Debug for Approver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Approve::Async(_) => "Approver(async)",
            Approve::Sync(_) => "Approver(sync)",
        })
    }
}

impl Approver {
    /// An async approver.
    pub fn new<F, Fut>(approve: F) -> Approver
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Approval> + Send + 'static,
    {
        Approver(Approve::Async(Arc::new(move |request| {
            Box::pin(approve(request))
        })))
    }

    /// A sync approver, called in place on the thread that polls the call (one that waits for
    /// a person should be async, or it blocks that thread, and a cancellation cannot stop it).
    pub fn sync<F>(approve: F) -> Approver
    where
        F: Fn(&ApprovalRequest) -> Approval + Send + Sync + 'static,
    {
        Approver(Approve::Sync(Arc::new(approve)))
    }

    pub(crate) fn ask(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        match &self.0 {
            Approve::Async(f) => f(request),
            Approve::Sync(f) => Box::pin(std::future::ready(f(&request))),
        }
    }
}
