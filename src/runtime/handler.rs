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

/// A boxed future that can move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A failure of a tool's handler. Its message is what the model is told when the tool's
/// `@on_error` is `suppress`.
#[derive(Clone, Debug)]
pub struct ToolError {
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl ToolError {
    /// An error with a message.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            source: None,
        }
    }

    /// An error from another error, keeping it as the source; the message is its `Display`.
    pub fn from_error(error: impl std::error::Error + Send + Sync + 'static) -> ToolError {
        ToolError {
            message: error.to_string(),
            source: Some(Arc::new(error)),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
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

type AsyncFn = dyn Fn(Value) -> BoxFuture<Result<Value, ToolError>> + Send + Sync;
type SyncFn = dyn Fn(Value) -> Result<Value, ToolError> + Send + Sync;

/// The code that runs a tool: it gets the normalized arguments (defaults filled, coercions
/// applied) and returns the tool's result as JSON, or an error.
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
            run: Run::Async(Arc::new(move |args| Box::pin(handler(args)))),
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
            run: Run::Sync(Arc::new(handler)),
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
    pub(crate) fn run(&self, args: Value, stoppable: bool) -> BoxFuture<Result<Value, ToolError>> {
        match &self.run {
            Run::Async(f) => {
                let f = Arc::clone(f);
                // Making the future runs the closure's code before its first await: a panic
                // there is caught too.
                match catch_unwind(AssertUnwindSafe(|| f(args))) {
                    Ok(future) => Box::pin(CatchPanic { future }),
                    Err(panic) => Box::pin(std::future::ready(Err(panicked(panic)))),
                }
            }
            Run::Sync(f) if !stoppable => {
                let result =
                    catch_unwind(AssertUnwindSafe(|| f(args))).unwrap_or_else(|p| Err(panicked(p)));
                Box::pin(std::future::ready(result))
            }
            Run::Sync(f) => {
                let f = Arc::clone(f);
                let slot = Arc::new(Slot::default());
                let filled = Arc::clone(&slot);
                let spawned = std::thread::Builder::new()
                    .name("tooldef-handler".into())
                    .spawn(move || {
                        let result = catch_unwind(AssertUnwindSafe(|| f(args)))
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
