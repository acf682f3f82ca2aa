//! The runtime: handlers, and the call policies of a tool's attributes, on a fake clock.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{json, Value};
use tooldef::emit::Target;
use tooldef::model::OnError;
use tooldef::runtime::{
    AppliedCoercion, Approval, ApprovalRequest, Approver, CallError, CallErrorKind, CallOutcome,
    CancelToken, FakeClock, Handler, Reply, RunOptions, Runtime, ToolError,
};
use tooldef::validate::{CoercionRule, Mode, OnInvalid};
use tooldef::Toolset;

const SOURCE: &str = r#"
/// The weather in a city.
tool get_weather -> { city: string, temp: number, unit?: "c" | "f" = "c" } {
  /// The city.
  city: string @min_length(1)
  days?: integer @min(1) = 1
}

/// Add two integers.
@lax
tool add { a: integer, b?: integer = 0 }

/// Delete a file.
@requires_approval
tool delete_file { path: string }

/// Fails now and then; exponential waits.
@retry(times: 3, wait: exponential, base: 0.5)
@on_error(suppress)
tool flaky_exp {}

/// Fails now and then; linear waits.
@retry(times: 3, wait: linear, base: 0.5)
@on_error(suppress)
tool flaky_lin {}

/// Fails now and then; fixed waits.
@retry(times: 2, wait: 0.25)
@on_error(raise)
tool flaky_fixed {}

/// Retried at once.
@retry(times: 2)
tool flaky_now {}

/// Slow.
@on_error(suppress)
tool slow {}

/// Says nothing about errors.
tool plain {}
"#;

fn toolset() -> Toolset {
    Toolset::from_source(SOURCE).expect("the test source compiles")
}

/// A runtime on a fake clock, and the clock.
fn runtime() -> (Runtime, FakeClock) {
    let clock = FakeClock::new();
    (Runtime::new(toolset()).with_clock(clock.clone()), clock)
}

fn call(
    runtime: &Runtime,
    name: &str,
    args: &str,
    options: RunOptions,
) -> Result<Reply, CallError> {
    block_on(runtime.call(name, args, options))
}

fn ok(runtime: &Runtime, name: &str, args: &str) -> Reply {
    call(runtime, name, args, RunOptions::default()).expect("the call answers the model")
}

fn err(runtime: &Runtime, name: &str, args: &str) -> CallError {
    call(runtime, name, args, RunOptions::default()).expect_err("the call fails")
}

/// An async handler that records the arguments of each run and answers with `answer`.
fn recording(
    answer: impl Fn(u32) -> Result<Value, ToolError> + Send + Sync + 'static,
) -> (Handler, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let answer = Arc::new(answer);
    let handler = Handler::new(move |args| {
        let record = Arc::clone(&record);
        let answer = Arc::clone(&answer);
        async move {
            let n = {
                let mut seen = record.lock().unwrap();
                seen.push(args);
                seen.len() as u32
            };
            answer(n)
        }
    });
    (handler, seen)
}

fn runs(seen: &Arc<Mutex<Vec<Value>>>) -> usize {
    seen.lock().unwrap().len()
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

#[test]
fn a_valid_call_runs_the_handler_with_defaults_filled() {
    let (mut rt, clock) = runtime();
    let (handler, seen) = recording(|_| Ok(json!({"city": "Oslo", "temp": 3.5})));
    rt.register("get_weather", handler).unwrap();
    let reply = ok(&rt, "get_weather", r#"{"city": "Oslo"}"#);
    assert_eq!(*seen.lock().unwrap(), [json!({"city": "Oslo", "days": 1})]);
    // The result is checked and normalized like arguments: its default is filled in.
    assert_eq!(
        reply.content,
        json!({"city": "Oslo", "temp": 3.5, "unit": "c"})
    );
    assert!(!reply.is_error);
    assert_eq!(reply.audit.outcome, CallOutcome::Ok);
    assert_eq!(reply.audit.mode, Some(Mode::Strict));
    assert_eq!(reply.audit.attempts, 1);
    assert!(clock.waits().is_empty());
}

#[test]
fn a_value_is_accepted_as_arguments() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!({"city": "Oslo", "temp": 1})));
    rt.register("get_weather", handler).unwrap();
    let args = json!({"days": 2, "city": "Oslo"});
    block_on(rt.call("get_weather", &args, RunOptions::default())).unwrap();
    assert_eq!(*seen.lock().unwrap(), [json!({"city": "Oslo", "days": 2})]);
}

#[test]
fn invalid_arguments_reply_with_the_message_for_the_model() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!({})));
    rt.register("get_weather", handler).unwrap();
    let reply = ok(&rt, "get_weather", r#"{"cty": "Oslo"}"#);
    assert!(reply.is_error);
    let text = reply.content.as_str().unwrap();
    assert!(
        text.starts_with("The arguments for `get_weather` are invalid"),
        "{text}"
    );
    assert!(text.contains("did you mean `city`?"), "{text}");
    assert_eq!(runs(&seen), 0);
    assert_eq!(reply.audit.outcome, CallOutcome::Invalid);
    assert_eq!(reply.audit.attempts, 0);
    assert_eq!(reply.audit.error.as_deref(), Some(text));
}

#[test]
fn invalid_arguments_raise_when_the_call_says_so() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!({})));
    rt.register("get_weather", handler).unwrap();
    let options = RunOptions::default().on_invalid(OnInvalid::Raise);
    let e = call(&rt, "get_weather", r#"{"city": ""}"#, options).unwrap_err();
    let CallErrorKind::Invalid(invalid) = &e.kind else {
        panic!("not an invalid-arguments error: {e:?}");
    };
    assert_eq!(invalid.errors[0].path, "/city");
    assert_eq!(e.to_string(), invalid.message());
    assert_eq!(e.audit.outcome, CallOutcome::Invalid);
    assert_eq!(runs(&seen), 0);
}

#[test]
fn an_unknown_tool_is_invalid_with_a_did_you_mean() {
    let (rt, _) = runtime();
    let reply = ok(&rt, "get_wether", "{}");
    assert!(reply.is_error);
    assert_eq!(
        reply.content,
        "no tool named `get_wether`; did you mean `get_weather`?"
    );
    assert_eq!(reply.audit.outcome, CallOutcome::Invalid);
    let options = RunOptions::default().on_invalid(OnInvalid::Raise);
    let e = call(&rt, "get_wether", "{}", options).unwrap_err();
    assert!(matches!(
        &e.kind,
        CallErrorKind::UnknownTool { suggestion: Some(s), .. } if s == "get_weather"
    ));
}

#[test]
fn registering_an_unknown_name_fails_with_a_did_you_mean() {
    let (mut rt, _) = runtime();
    let e = rt
        .register("get_wheather", Handler::sync(|_| Ok(json!(1))))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no tool named `get_wheather`; did you mean `get_weather`?"
    );
    assert!(!rt.has_handler("get_wheather"));
    rt.register("plain", Handler::sync(|_| Ok(json!(1))))
        .unwrap()
        .register("slow", Handler::sync(|_| Ok(json!(2))))
        .unwrap();
    assert!(rt.has_handler("plain") && rt.has_handler("slow"));
    assert!(!rt.unhandled().any(|n| n == "plain"));
}

#[test]
fn a_tool_without_a_handler_is_an_error_for_the_caller() {
    let (rt, _) = runtime();
    let e = err(&rt, "plain", "{}");
    assert!(matches!(&e.kind, CallErrorKind::NoHandler { tool } if tool == "plain"));
    assert_eq!(e.audit.outcome, CallOutcome::Error);
    assert_eq!(e.to_string(), "no handler is registered for tool `plain`");
}

#[test]
fn lax_coercions_are_applied_and_recorded_in_the_audit() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!("done")));
    rt.register("add", handler).unwrap();
    let reply = ok(&rt, "add", r#"{"a": "42"}"#);
    assert_eq!(*seen.lock().unwrap(), [json!({"a": 42, "b": 0})]);
    assert_eq!(reply.audit.mode, Some(Mode::Lax));
    assert_eq!(
        reply.audit.coercions,
        [AppliedCoercion {
            path: "/a".into(),
            rule: CoercionRule::IntegerFromString
        }]
    );
    // A call may choose strict mode: then "42" is not an integer.
    let reply = call(
        &rt,
        "add",
        r#"{"a": "42"}"#,
        RunOptions::default().mode(Mode::Strict),
    )
    .unwrap();
    assert!(reply.is_error);
    assert_eq!(reply.audit.mode, Some(Mode::Strict));
    assert!(reply.audit.coercions.is_empty());
    assert_eq!(runs(&seen), 1);
}

#[test]
fn a_call_reads_arguments_in_the_shape_its_target_showed() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!({"city": "Oslo", "temp": 1})));
    rt.register("get_weather", handler).unwrap();
    let args = r#"{"city": "Oslo", "days": null}"#;
    // In the source's shape, `null` is not an integer.
    assert!(ok(&rt, "get_weather", args).is_error);
    // openai-strict showed `days` as required and nullable: `null` means absent.
    let options = RunOptions::default().target(Target::OpenAiStrict);
    let reply = call(&rt, "get_weather", args, options).unwrap();
    assert!(!reply.is_error, "{:?}", reply.content);
    assert_eq!(reply.audit.target, Some("openai-strict"));
    assert_eq!(*seen.lock().unwrap(), [json!({"city": "Oslo", "days": 1})]);
}

#[test]
fn an_approved_call_runs_and_the_approver_sees_the_normalized_arguments() {
    let asked: Arc<Mutex<Vec<ApprovalRequest>>> = Arc::default();
    let record = Arc::clone(&asked);
    let approver = Approver::new(move |request| {
        record.lock().unwrap().push(request);
        async { Approval::Approve }
    });
    let (rt, _) = runtime();
    let mut rt = rt.with_approver(approver);
    let (handler, seen) = recording(|_| Ok(json!("deleted")));
    rt.register("delete_file", handler).unwrap();
    let reply = ok(&rt, "delete_file", r#"{"path": "/tmp/x"}"#);
    assert_eq!(reply.content, "deleted");
    assert!(!reply.is_error);
    assert_eq!(reply.audit.approved, Some(true));
    assert_eq!(
        *asked.lock().unwrap(),
        [ApprovalRequest {
            tool: "delete_file".into(),
            arguments: json!({"path": "/tmp/x"})
        }]
    );
    assert_eq!(runs(&seen), 1);
    // Tools that do not require approval do not ask.
    rt.register("plain", Handler::sync(|_| Ok(json!(1))))
        .unwrap();
    assert_eq!(ok(&rt, "plain", "{}").audit.approved, None);
    assert_eq!(asked.lock().unwrap().len(), 1);
}

#[test]
fn a_denied_call_is_refused_and_never_runs() {
    let (rt, _) = runtime();
    let mut rt = rt.with_approver(Approver::sync(|request| {
        Approval::deny_because(format!("{} is protected", request.arguments["path"]))
    }));
    let (handler, seen) = recording(|_| Ok(json!("deleted")));
    rt.register("delete_file", handler).unwrap();
    let reply = ok(&rt, "delete_file", r#"{"path": "/etc"}"#);
    assert!(reply.is_error);
    assert_eq!(
        reply.content,
        r#"The call to `delete_file` was denied: "/etc" is protected"#
    );
    assert_eq!(reply.audit.outcome, CallOutcome::Refused);
    assert_eq!(reply.audit.approved, Some(false));
    assert_eq!(reply.audit.attempts, 0);
    assert_eq!(runs(&seen), 0);

    let rt = rt.with_approver(Approver::sync(|_| Approval::deny()));
    let reply = ok(&rt, "delete_file", r#"{"path": "/etc"}"#);
    assert_eq!(reply.content, "The call to `delete_file` was denied.");
    assert_eq!(runs(&seen), 0);
}

#[test]
fn without_an_approver_a_call_that_needs_one_is_refused() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!("deleted")));
    rt.register("delete_file", handler).unwrap();
    let reply = ok(&rt, "delete_file", r#"{"path": "/etc"}"#);
    assert!(reply.is_error);
    let text = reply.content.as_str().unwrap();
    assert!(
        text.contains("`delete_file` requires approval and no approver is configured"),
        "{text}"
    );
    assert_eq!(reply.audit.outcome, CallOutcome::Refused);
    assert_eq!(reply.audit.approved, None);
    assert_eq!(runs(&seen), 0);
}

/// Runs `tool` with a handler that always fails; the reply and the number of runs.
fn always_failing(tool: &str) -> (Result<Reply, CallError>, usize, FakeClock) {
    let (mut rt, clock) = runtime();
    let (handler, seen) = recording(|n| Err(ToolError::new(format!("boom {n}"))));
    rt.register(tool, handler).unwrap();
    let result = call(&rt, tool, "{}", RunOptions::default());
    (result, runs(&seen), clock)
}

#[test]
fn retries_wait_exponentially() {
    let (result, runs, clock) = always_failing("flaky_exp");
    assert_eq!(runs, 4);
    assert_eq!(clock.waits(), [secs(0.5), secs(1.0), secs(2.0)]);
    let audit = result.unwrap().audit;
    assert_eq!(audit.attempts, 4);
    assert_eq!(audit.duration, secs(3.5));
}

#[test]
fn retries_wait_linearly() {
    let (_, runs, clock) = always_failing("flaky_lin");
    assert_eq!(runs, 4);
    assert_eq!(clock.waits(), [secs(0.5), secs(1.0), secs(1.5)]);
}

#[test]
fn retries_wait_a_fixed_time() {
    let (_, runs, clock) = always_failing("flaky_fixed");
    assert_eq!(runs, 3);
    assert_eq!(clock.waits(), [secs(0.25), secs(0.25)]);
}

#[test]
fn retries_without_a_wait_ask_the_clock_for_none() {
    let (_, runs, clock) = always_failing("flaky_now");
    assert_eq!(runs, 3);
    assert!(clock.waits().is_empty());
}

#[test]
fn retries_stop_at_the_first_success() {
    let (mut rt, clock) = runtime();
    let (handler, seen) = recording(|n| {
        if n < 3 {
            Err("not yet".into())
        } else {
            Ok(json!(n))
        }
    });
    rt.register("flaky_exp", handler).unwrap();
    let reply = ok(&rt, "flaky_exp", "{}");
    assert_eq!(reply.content, json!(3));
    assert!(!reply.is_error);
    assert_eq!(reply.audit.attempts, 3);
    assert_eq!(reply.audit.outcome, CallOutcome::Ok);
    assert_eq!(runs(&seen), 3);
    assert_eq!(clock.waits(), [secs(0.5), secs(1.0)]);
}

#[test]
fn invalid_arguments_and_refusals_are_not_retried() {
    let (mut rt, clock) = runtime();
    let (handler, seen) = recording(|_| Ok(json!(1)));
    rt.register("flaky_exp", handler).unwrap();
    let reply = ok(&rt, "flaky_exp", r#"{"x": 1}"#);
    assert_eq!(reply.audit.outcome, CallOutcome::Invalid);
    assert_eq!(runs(&seen), 0);
    assert!(clock.waits().is_empty());
}

#[test]
fn exhausted_retries_are_suppressed_into_a_reply() {
    let (result, _, _) = always_failing("flaky_exp");
    let reply = result.expect("@on_error(suppress) answers the model");
    assert!(reply.is_error);
    assert_eq!(reply.content, "Tool `flaky_exp` failed: boom 4");
    assert_eq!(reply.audit.outcome, CallOutcome::Error);
}

#[test]
fn exhausted_retries_are_raised() {
    let (result, _, _) = always_failing("flaky_fixed");
    let e = result.expect_err("@on_error(raise) fails the call");
    let CallErrorKind::Failed(tool_error) = &e.kind else {
        panic!("not a failure: {e:?}");
    };
    assert_eq!(tool_error.message(), "boom 3");
    assert_eq!(e.to_string(), "tool `flaky_fixed` failed: boom 3");
    assert_eq!(e.audit.outcome, CallOutcome::Error);
    assert_eq!(e.audit.attempts, 3);
}

#[test]
fn a_tool_without_on_error_raises_unless_the_runtime_says_otherwise() {
    let (result, runs, _) = always_failing("plain");
    assert!(matches!(result.unwrap_err().kind, CallErrorKind::Failed(_)));
    assert_eq!(runs, 1);

    let (rt, _) = runtime();
    let mut rt = rt.with_on_error(OnError::Suppress);
    rt.register("plain", Handler::sync(|_| Err("no".into())))
        .unwrap();
    let reply = ok(&rt, "plain", "{}");
    assert!(reply.is_error);
    assert_eq!(reply.content, "Tool `plain` failed: no");
}

/// A handler that never completes.
fn never() -> Handler {
    Handler::new(|_| std::future::pending::<Result<Value, ToolError>>())
}

#[test]
fn a_call_times_out_on_the_clock() {
    let (mut rt, clock) = runtime();
    rt.register("slow", never()).unwrap();
    let options = RunOptions::default().timeout(secs(5.0));
    let reply = call(&rt, "slow", "{}", options).unwrap();
    assert!(reply.is_error);
    assert_eq!(reply.content, "Tool `slow` did not finish within 5s.");
    assert_eq!(reply.audit.outcome, CallOutcome::TimedOut);
    assert_eq!(reply.audit.duration, secs(5.0));
    assert_eq!(clock.waits(), [secs(5.0)]);

    // Raised for a tool whose failures are raised.
    rt.register("plain", never()).unwrap();
    let e = call(&rt, "plain", "{}", RunOptions::default().timeout(secs(1.0))).unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::TimedOut { after } if after == secs(1.0)));
    assert_eq!(e.audit.outcome, CallOutcome::TimedOut);
}

#[test]
fn the_timeout_of_the_call_beats_the_handlers_which_beats_the_runtimes() {
    let clock = FakeClock::new();
    let mut rt = Runtime::new(toolset())
        .with_clock(clock.clone())
        .with_timeout(secs(10.0));
    rt.register("slow", never().with_timeout(secs(3.0)))
        .unwrap()
        .register("plain", never())
        .unwrap();
    ok(&rt, "slow", "{}");
    call(&rt, "slow", "{}", RunOptions::default().timeout(secs(1.0))).unwrap();
    err(&rt, "plain", "{}");
    assert_eq!(clock.waits(), [secs(3.0), secs(1.0), secs(10.0)]);
}

#[test]
fn a_handler_done_at_once_starts_no_timeout() {
    let (mut rt, clock) = runtime();
    rt.register("slow", Handler::new(|_| async { Ok(json!(1)) }))
        .unwrap();
    let reply = call(&rt, "slow", "{}", RunOptions::default().timeout(secs(5.0))).unwrap();
    assert_eq!(reply.audit.outcome, CallOutcome::Ok);
    assert!(clock.waits().is_empty());
}

#[test]
fn timed_out_attempts_are_retried() {
    let (mut rt, clock) = runtime();
    rt.register("flaky_fixed", never()).unwrap();
    let e = call(
        &rt,
        "flaky_fixed",
        "{}",
        RunOptions::default().timeout(secs(2.0)),
    )
    .unwrap_err();
    assert_eq!(e.audit.attempts, 3);
    assert_eq!(e.audit.outcome, CallOutcome::TimedOut);
    let (t, w) = (secs(2.0), secs(0.25));
    assert_eq!(clock.waits(), [t, w, t, w, t]);
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicU32>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn cancelling_a_pending_call_drops_the_handler_and_resolves_as_cancelled() {
    let (mut rt, _) = runtime();
    let token = CancelToken::new();
    let dropped = Arc::new(AtomicU32::new(0));
    let (canceller, flag) = (token.clone(), Arc::clone(&dropped));
    // The handler starts, then its caller cancels while it is pending.
    rt.register(
        "slow",
        Handler::new(move |_| {
            let guard = DropFlag(Arc::clone(&flag));
            let canceller = canceller.clone();
            async move {
                let _guard = guard;
                canceller.cancel();
                std::future::pending::<()>().await;
                Ok(json!("never"))
            }
        }),
    )
    .unwrap();
    let e = call(
        &rt,
        "slow",
        "{}",
        RunOptions::default().cancel(token.clone()),
    )
    .unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Cancelled));
    assert_eq!(e.audit.outcome, CallOutcome::Cancelled);
    assert_eq!(e.audit.attempts, 1);
    assert_eq!(e.to_string(), "the call to `slow` was cancelled");
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
    assert!(token.is_cancelled());
}

#[test]
fn a_call_with_a_cancelled_token_does_not_start() {
    let (mut rt, _) = runtime();
    let (handler, seen) = recording(|_| Ok(json!(1)));
    rt.register("plain", handler).unwrap();
    let token = CancelToken::new();
    token.cancel();
    let e = call(&rt, "plain", "{}", RunOptions::default().cancel(token)).unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Cancelled));
    assert_eq!(e.audit.attempts, 0);
    assert_eq!(runs(&seen), 0);
}

#[test]
fn cancelling_a_call_waiting_for_approval_stops_it() {
    let token = CancelToken::new();
    let canceller = token.clone();
    let (rt, _) = runtime();
    let mut rt = rt.with_approver(Approver::new(move |_| {
        canceller.cancel();
        std::future::pending::<Approval>()
    }));
    let (handler, seen) = recording(|_| Ok(json!(1)));
    rt.register("delete_file", handler).unwrap();
    let options = RunOptions::default().cancel(token);
    let e = call(&rt, "delete_file", r#"{"path": "x"}"#, options).unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Cancelled));
    assert_eq!(runs(&seen), 0);
}

#[test]
fn a_result_that_does_not_fit_the_output_type_is_a_tool_error() {
    let (mut rt, _) = runtime();
    rt.register(
        "get_weather",
        Handler::new(|_| async { Ok(json!({"city": "Oslo", "temp": "warm", "unit": "k"})) }),
    )
    .unwrap();
    let e = err(&rt, "get_weather", r#"{"city": "Oslo"}"#);
    let CallErrorKind::Failed(tool_error) = &e.kind else {
        panic!("not a failure: {e:?}");
    };
    let text = tool_error.message();
    assert!(
        text.starts_with("its result does not fit its output type"),
        "{text}"
    );
    assert!(text.contains("at /temp: "), "{text}");
    assert!(text.contains("at /unit: "), "{text}");
    assert_eq!(e.audit.outcome, CallOutcome::Error);

    // Suppressed, the model is told the same, and never sees the result.
    let (rt2, _) = runtime();
    let mut rt2 = rt2.with_on_error(OnError::Suppress);
    rt2.register("get_weather", Handler::sync(|_| Ok(json!([1]))))
        .unwrap();
    let reply = ok(&rt2, "get_weather", r#"{"city": "Oslo"}"#);
    assert!(reply.is_error);
    let text = reply.content.as_str().unwrap();
    assert!(
        text.starts_with("Tool `get_weather` failed: its result does not fit"),
        "{text}"
    );
    assert!(text.contains("at the top level: "), "{text}");
}

#[test]
fn a_tool_without_an_output_type_passes_any_result_on() {
    let (mut rt, _) = runtime();
    rt.register("plain", Handler::sync(|_| Ok(json!([1, "two", null]))))
        .unwrap();
    assert_eq!(ok(&rt, "plain", "{}").content, json!([1, "two", null]));
}

fn thread_name() -> Value {
    json!(std::thread::current().name().unwrap_or("unnamed"))
}

#[test]
fn a_sync_handler_runs_in_place_unless_its_call_can_be_stopped() {
    let (mut rt, _) = runtime();
    let (sender, receiver) = std::sync::mpsc::channel::<Value>();
    let receiver = Mutex::new(receiver);
    rt.register("plain", Handler::sync(|_| Ok(thread_name())))
        .unwrap()
        .register(
            "slow",
            Handler::sync(move |_| Ok(receiver.lock().unwrap().recv().unwrap_or(Value::Null))),
        )
        .unwrap();
    let here = thread_name();
    assert_eq!(ok(&rt, "plain", "{}").content, here);
    // With a cancel token (or a timeout), on a thread of its own.
    let options = RunOptions::default().cancel(CancelToken::new());
    let reply = call(&rt, "plain", "{}", options).unwrap();
    assert_eq!(reply.content, "tooldef-handler");
    // A blocked sync handler times out; its thread is left to finish.
    let reply = call(&rt, "slow", "{}", RunOptions::default().timeout(secs(1.0))).unwrap();
    assert_eq!(reply.audit.outcome, CallOutcome::TimedOut);
    sender.send(json!("late")).unwrap();
}

#[test]
fn a_panicking_handler_fails_its_attempt() {
    let (mut rt, _) = runtime();
    rt.register("flaky_now", Handler::sync(|_| panic!("sync bug")))
        .unwrap()
        .register("slow", Handler::new(|_| async { panic!("async bug") }))
        .unwrap();
    let e = err(&rt, "flaky_now", "{}");
    assert_eq!(e.audit.attempts, 3);
    assert!(
        matches!(&e.kind, CallErrorKind::Failed(t) if t.message() == "the handler panicked: sync bug")
    );
    let reply = ok(&rt, "slow", "{}");
    assert_eq!(
        reply.content,
        "Tool `slow` failed: the handler panicked: async bug"
    );
    // On a thread of its own too (a fake clock's timeout would not wait for that thread).
    let options = RunOptions::default().cancel(CancelToken::new());
    let e = call(&rt, "flaky_now", "{}", options).unwrap_err();
    assert!(
        matches!(&e.kind, CallErrorKind::Failed(t) if t.message() == "the handler panicked: sync bug")
    );
}

#[test]
fn a_real_clock_timeout_does_not_hold_up_a_quick_handler() {
    let mut rt = Runtime::new(toolset()).with_timeout(Duration::from_secs(3600));
    rt.register("plain", Handler::sync(|_| Ok(json!("quick"))))
        .unwrap();
    let reply = ok(&rt, "plain", "{}");
    assert_eq!(reply.content, "quick");
    assert!(reply.audit.duration < Duration::from_secs(3600));
}

#[test]
fn a_runtime_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Runtime>();
    check::<CancelToken>();
    check::<Handler>();
    check::<Approver>();
    // A call can be spawned on a multi-threaded executor.
    fn sendable<T: Send>(_: T) {}
    let rt = runtime().0;
    sendable(rt.call("plain", "{}", RunOptions::default()));
}

#[test]
fn the_audit_record_serializes_for_logs() {
    let (mut rt, clock) = runtime();
    let flip = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&flip);
    rt.register(
        "add",
        Handler::sync(move |_| match counter.fetch_add(1, Ordering::SeqCst) {
            0 => Ok(json!(1)),
            _ => Err("down".into()),
        }),
    )
    .unwrap();
    let reply = call(
        &rt,
        "add",
        r#"{"a": "1", "b": 2.0}"#,
        RunOptions::default().target(Target::Mcp),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&reply.audit).unwrap(),
        json!({
            "tool": "add",
            "mode": "lax",
            "target": "mcp",
            "coercions": [{"path": "/a", "rule": "integer-from-string"}],
            "repairs": [],
            "approved": null,
            "attempts": 1,
            "duration_ms": 0.0,
            "outcome": "ok",
        })
    );
    clock.advance(Duration::from_millis(1));
    let e = err(&rt, "add", r#"{"a": 1}"#);
    assert_eq!(
        serde_json::to_value(&e.audit).unwrap(),
        json!({
            "tool": "add",
            "mode": "lax",
            "target": null,
            "coercions": [],
            "repairs": [],
            "approved": null,
            "attempts": 1,
            "duration_ms": 0.0,
            "outcome": "error",
            "error": "Tool `add` failed: down",
            "error_kind": "error",
        })
    );
    let (mut rt, _) = runtime();
    rt.register("slow", never()).unwrap();
    let reply = call(
        &rt,
        "slow",
        "{}",
        RunOptions::default().timeout(Duration::from_millis(1500)),
    )
    .unwrap();
    let line = serde_json::to_string(&reply.audit).unwrap();
    assert!(line.contains(r#""duration_ms":1500.0"#), "{line}");
    assert!(line.contains(r#""outcome":"timed_out""#), "{line}");
    assert_eq!(reply.audit.mode, Some(Mode::Strict));
}
