//! Running calls through the library's `Runtime`: Python functions as handlers, a Python
//! callable as the approver, and the policies of the `.tool` file (mode, approval, timeout,
//! retry, on-error, the output check) applied by the runtime, not here.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;
use tooldef::runtime::{Approval, Approver, Handler, RunOptions, Runtime, ToolError};
use tooldef::validate::Arguments;

use crate::convert::{to_py, to_value};

pyo3::create_exception!(
    tooldef,
    CallError,
    PyRuntimeError,
    "A call that failed for its caller, not for the model (a failure under `@on_error(raise)`, \
     a timeout, a tool without a handler): `.audit` is the call's record."
);

/// Runs a future to its end on this thread (the runtime needs no async runtime: its clock has
/// a timer thread of its own).
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return out,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// A Python exception as the handler error the retry and on-error policies see: its type and
/// its message.
fn tool_error(py: Python<'_>, e: &PyErr) -> ToolError {
    let name = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    ToolError::new(format!("{name}: {}", e.value(py)))
}

/// How many Python handlers are running. A handler whose call timed out goes on running on a
/// thread of its own; if the interpreter finalizes meanwhile, that thread is ended inside Python
/// and the process aborts, so the package waits for them at exit ([`wait_for_handlers`]).
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Counts a running handler while it lives.
struct Running;

impl Running {
    fn start() -> Running {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits, up to `seconds`, for the Python handlers still running (those whose calls timed out
/// or were cancelled) to finish; whether none is left. The package calls it at exit.
#[pyfunction]
pub(crate) fn _wait_for_handlers(py: Python<'_>, seconds: f64) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
    py.detach(|| {
        while RUNNING.load(Ordering::SeqCst) > 0 {
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    })
}

/// A Python function (sync, or `async def`: its coroutine is run to its end) as a handler.
pub(crate) fn handler(function: Py<PyAny>) -> Handler {
    Handler::sync(move |args: Value| {
        let _running = Running::start();
        Python::attach(|py| {
            let run = || -> PyResult<Value> {
                let out = function.call1(py, (to_py(py, &args)?,))?;
                let out = out.into_bound(py);
                let out = if py
                    .import("inspect")?
                    .call_method1("iscoroutine", (&out,))?
                    .is_truthy()?
                {
                    py.import("asyncio")?.call_method1("run", (out,))?
                } else {
                    out
                };
                to_value(&out, "the handler's result")
            };
            run().map_err(|e| tool_error(py, &e))
        })
    })
}

/// A Python callable `approver(tool, arguments)` as the approver: `True` approves, a `str`
/// denies with that reason, anything else (or an exception) denies.
pub(crate) fn approver(function: Py<PyAny>) -> Approver {
    Approver::sync(move |request| {
        Python::attach(|py| {
            let answer = to_py(py, &request.arguments)
                .and_then(|args| function.call1(py, (request.tool.as_str(), args)));
            match answer {
                Ok(a) => {
                    let a = a.into_bound(py);
                    if let Ok(reason) = a.extract::<String>() {
                        Approval::deny_because(reason)
                    } else if a.is_truthy().unwrap_or(false) {
                        Approval::Approve
                    } else {
                        Approval::deny()
                    }
                }
                Err(e) => Approval::deny_because(format!("the approver failed: {}", e.value(py))),
            }
        })
    })
}

/// A timeout in seconds as a duration.
pub(crate) fn duration(seconds: Option<f64>) -> PyResult<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) => Duration::try_from_secs_f64(s).map(Some).map_err(|_| {
            PyValueError::new_err(format!(
                "timeout must be a positive number of seconds, not {s}"
            ))
        }),
    }
}

/// What one call gives the model: the handler's result (or a message, when `is_error`), and
/// the call's record.
#[pyclass(frozen, module = "tooldef._tooldef", name = "Reply")]
pub(crate) struct Reply {
    /// The handler's result, or the message for the model when `is_error`.
    #[pyo3(get)]
    content: Py<PyAny>,
    /// Whether the content reports a problem (invalid arguments, a refusal, a suppressed
    /// failure).
    #[pyo3(get)]
    is_error: bool,
    /// The call's record: tool, mode, coercions, repairs, approved, attempts, duration_ms,
    /// outcome, error.
    #[pyo3(get)]
    pub(crate) audit: Py<PyAny>,
    /// The reply in the provider's shape, for a call read from a response.
    #[pyo3(get)]
    pub(crate) reply: Py<PyAny>,
}

#[pymethods]
impl Reply {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Reply(is_error={}, content={})",
            if self.is_error { "True" } else { "False" },
            self.content
                .bind(py)
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_default()
        )
    }
}

/// Runs one call; a `CallError` is raised as `tooldef.CallError`. `reply` turns the content
/// into the provider's reply, for calls read from a response.
pub(crate) fn call(
    py: Python<'_>,
    runtime: &Runtime,
    tool: &str,
    arguments: Arguments<'_>,
    options: RunOptions,
    reply: impl FnOnce(&str, bool) -> Option<Value> + Send,
) -> PyResult<Reply> {
    let (out, shaped) = py.detach(|| {
        let out = block_on(runtime.call(tool, arguments, options));
        let shaped = match &out {
            Ok(r) => {
                let text = match &r.content {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                reply(&text, r.is_error)
            }
            Err(_) => None,
        };
        (out, shaped)
    });
    match out {
        Ok(r) => Ok(Reply {
            content: to_py(py, &r.content)?.unbind(),
            is_error: r.is_error,
            audit: audit(py, &r.audit)?,
            reply: match shaped {
                Some(v) => to_py(py, &v)?.unbind(),
                None => py.None(),
            },
        }),
        Err(e) => {
            let err = CallError::new_err(e.to_string());
            let _ = err.value(py).setattr("audit", audit(py, &e.audit)?);
            Err(err)
        }
    }
}

fn audit(py: Python<'_>, audit: &tooldef::Audit) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(audit).unwrap_or(Value::Null);
    Ok(to_py(py, &value)?.unbind())
}

/// The replies of a response's calls run through their handlers.
#[pyclass(frozen, module = "tooldef._tooldef", name = "RunResult")]
pub(crate) struct RunResult {
    /// Each call's outcome, in order.
    #[pyo3(get)]
    pub(crate) calls: Py<PyList>,
    /// The reply for every call, in the provider's shape, ready to send back.
    #[pyo3(get)]
    pub(crate) replies: Py<PyList>,
    /// Each call's record.
    #[pyo3(get)]
    pub(crate) audits: Py<PyList>,
}
