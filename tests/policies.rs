//! The call policies of issue 53: retries by error kind and final errors, `@on_invalid`, the
//! result cache, and what a handler's context lets it do. Every wait and TTL runs on a fake
//! clock.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{json, Value};
use tooldef::envelope::Provider;
use tooldef::runtime::{
    CacheLimits, CacheUse, CallContext, CallError, CallErrorKind, CallOutcome, CancelToken,
    FakeClock, Handler, Reply, RunOptions, Runtime, ToolError,
};
use tooldef::validate::{CallOptions, OnInvalid, Outcome};
use tooldef::{compile_with, Code, Diagnostic, MemoryLoader, Toolset};

const SOURCE: &str = r#"
/// Retries what is unavailable, twice.
@retry(times: 2, on: [unavailable])
@on_error(suppress)
tool by_kind {}

/// Timeouts once after half a second; anything else three times after two seconds.
@retry(times: 1, wait: 0.5, on: [timeout])
@retry(times: 3, wait: 2)
@on_error(suppress)
tool layered {}

/// Retries every kind.
@retry(times: 3)
@on_error(suppress)
tool any_kind {}

/// Retries only the built-in kinds it names.
@retry(times: 1, on: [panic, "invalid-output"])
@on_error(suppress)
tool built_in -> { n: integer } {}

/// Retries errors that have no kind of their own.
@retry(times: 1, on: [error])
@on_error(suppress)
tool unkinded {}

/// Raises on invalid arguments unless the call says otherwise.
@on_invalid(raise)
tool strict_args { n: integer }

/// Replies on invalid arguments unless the call says otherwise.
@on_invalid(reply)
tool lenient_args { n: integer }

/// Ends the task.
@retry(times: 2)
@on_error(suppress)
tool finish { summary: string }

/// Echoes.
tool echo { text: string }

/// Cached for five minutes.
@read_only @cache(ttl: "5m") @on_error(suppress)
tool lookup { id: string, opts?: { a?: integer, b?: integer }, page?: integer = 1 }
"#;

fn runtime() -> (Runtime, FakeClock) {
    let clock = FakeClock::new();
    let tools = Toolset::from_source(SOURCE).expect("the test source compiles");
    (Runtime::new(tools).with_clock(clock.clone()), clock)
}

fn call(rt: &Runtime, name: &str, args: &str, options: RunOptions) -> Result<Reply, CallError> {
    block_on(rt.call(name, args, options))
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// A handler that fails every time with `error`, and its count of runs.
fn failing(error: ToolError) -> (Handler, Arc<AtomicU32>) {
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    let handler = Handler::sync(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        Err(error.clone())
    });
    (handler, runs)
}

/// Runs `tool` with a handler failing with `error`: the reply and the number of runs.
fn run_failing(tool: &str, error: ToolError) -> (Reply, u32, FakeClock) {
    let (mut rt, clock) = runtime();
    let (handler, runs) = failing(error);
    rt.register(tool, handler).unwrap();
    let reply = call(&rt, tool, "{}", RunOptions::default()).expect("suppressed");
    (reply, runs.load(Ordering::SeqCst), clock)
}

#[test]
fn a_retry_whose_on_names_the_kind_retries_it() {
    let (reply, runs, _) = run_failing("by_kind", ToolError::new("busy").with_kind("unavailable"));
    assert_eq!(runs, 3);
    assert_eq!(reply.audit.attempts, 3);
    assert_eq!(reply.audit.error_kind.as_deref(), Some("unavailable"));
}

#[test]
fn a_retry_whose_on_does_not_name_the_kind_does_not_retry() {
    let (reply, runs, clock) =
        run_failing("by_kind", ToolError::new("no").with_kind("bad-request"));
    assert_eq!(runs, 1);
    assert_eq!(reply.audit.error_kind.as_deref(), Some("bad-request"));
    assert!(clock.waits().is_empty());
    // An error without a kind is of kind `error`, which `on: [unavailable]` does not name.
    let (_, runs, _) = run_failing("by_kind", ToolError::new("no"));
    assert_eq!(runs, 1);
}

#[test]
fn an_error_without_a_kind_is_of_kind_error() {
    let (reply, runs, _) = run_failing("unkinded", ToolError::new("no"));
    assert_eq!(runs, 2);
    assert_eq!(reply.audit.error_kind.as_deref(), Some(ToolError::ERROR));
}

#[test]
fn the_first_retry_whose_on_matches_applies_with_its_own_count_and_wait() {
    // Not a timeout: the second policy, three retries two seconds apart.
    let (_, runs, clock) = run_failing("layered", ToolError::new("boom").with_kind("other"));
    assert_eq!(runs, 4);
    assert_eq!(clock.waits(), [secs(2.0); 3]);

    // A timeout: the first policy, once; when it is spent the second does not take over.
    let (mut rt, clock) = runtime();
    rt.register(
        "layered",
        Handler::new(|_| std::future::pending::<Result<Value, ToolError>>()),
    )
    .unwrap();
    let reply = call(
        &rt,
        "layered",
        "{}",
        RunOptions::default().timeout(secs(1.0)),
    )
    .unwrap();
    assert_eq!(reply.audit.attempts, 2);
    assert_eq!(reply.audit.outcome, CallOutcome::TimedOut);
    assert_eq!(reply.audit.error_kind.as_deref(), Some(ToolError::TIMEOUT));
    assert_eq!(clock.waits(), [secs(1.0), secs(0.5), secs(1.0)]);
}

#[test]
fn a_final_error_is_never_retried() {
    for tool in ["any_kind", "by_kind", "layered"] {
        let error = ToolError::new("no such account")
            .with_kind("unavailable")
            .fatal();
        let (reply, runs, clock) = run_failing(tool, error);
        assert_eq!(runs, 1, "{tool}");
        assert!(clock.waits().is_empty(), "{tool}");
        assert!(reply.is_error);
        assert_eq!(reply.audit.outcome, CallOutcome::Error);
    }
    // The same error, not final, is retried.
    let (_, runs, _) = run_failing("any_kind", ToolError::new("no such account"));
    assert_eq!(runs, 4);
}

#[test]
fn panics_and_results_that_do_not_fit_have_built_in_kinds() {
    let (mut rt, _) = runtime();
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    rt.register(
        "built_in",
        Handler::sync(move |_| {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                panic!("first run");
            }
            Ok(json!({"n": "not a number"}))
        }),
    )
    .unwrap();
    let reply = call(&rt, "built_in", "{}", RunOptions::default()).unwrap();
    // The panic was retried once; the result that does not fit ended the call, the policy
    // being spent.
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(
        reply.audit.error_kind.as_deref(),
        Some(ToolError::INVALID_OUTPUT)
    );

    // A kind the policy does not name is not retried.
    let (reply, runs, _) = run_failing("built_in", ToolError::new("x").with_kind("timeout2"));
    assert_eq!(runs, 1);
    assert_eq!(reply.audit.attempts, 1);
}

#[test]
fn a_handler_that_reports_its_call_cancelled_ends_it_as_cancelled() {
    let (mut rt, _) = runtime();
    let (handler, runs) = failing(ToolError::cancelled());
    rt.register("any_kind", handler).unwrap();
    let e = call(&rt, "any_kind", "{}", RunOptions::default()).unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Cancelled));
    assert_eq!(e.audit.outcome, CallOutcome::Cancelled);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn on_invalid_is_the_tools_default_and_the_call_wins() {
    let (mut rt, _) = runtime();
    for tool in ["strict_args", "lenient_args"] {
        rt.register(tool, Handler::sync(|_| Ok(json!(1)))).unwrap();
    }
    let bad = r#"{"n": "x"}"#;
    // The attribute, when the call does not say.
    let e = call(&rt, "strict_args", bad, RunOptions::default()).unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Invalid(_)));
    let reply = call(&rt, "lenient_args", bad, RunOptions::default()).unwrap();
    assert!(reply.is_error);
    assert_eq!(reply.audit.outcome, CallOutcome::Invalid);
    // The call's own choice, over the attribute.
    let reply = call(
        &rt,
        "strict_args",
        bad,
        RunOptions::default().on_invalid(OnInvalid::Reply),
    )
    .unwrap();
    assert_eq!(reply.audit.outcome, CallOutcome::Invalid);
    let e = call(
        &rt,
        "lenient_args",
        bad,
        RunOptions::default().on_invalid(OnInvalid::Raise),
    )
    .unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Invalid(_)));
}

#[test]
fn a_validator_follows_on_invalid_too() {
    let tools = Toolset::from_source(SOURCE).unwrap();
    let v = tools.validator("strict_args").unwrap();
    assert_eq!(v.default_on_invalid(), OnInvalid::Raise);
    assert!(v.call(r#"{"n": "x"}"#, CallOptions::default()).is_err());
    let reply = CallOptions {
        on_invalid: Some(OnInvalid::Reply),
        ..CallOptions::default()
    };
    assert!(matches!(
        v.call(r#"{"n": "x"}"#, reply),
        Ok(Outcome::Reply(_))
    ));
}

/// The diagnostics of a source.
fn diagnose(source: &str) -> Vec<Diagnostic> {
    let mut loader = MemoryLoader::new();
    loader.insert("main.tool", source);
    match compile_with("main.tool", source, &loader) {
        Ok(c) => c.warnings,
        Err(e) => e.diagnostics,
    }
}

fn errors(source: &str) -> Vec<Diagnostic> {
    diagnose(source)
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect()
}

#[test]
fn a_retry_that_can_never_apply_is_an_error_pointing_at_the_one_before() {
    for source in [
        "/// T.\n@retry(times: 1)\n@retry(times: 2, on: [timeout])\ntool t {}\n",
        "/// T.\n@retry(on: [timeout, busy])\n@retry(times: 2, on: [busy])\ntool t {}\n",
    ] {
        let errors = errors(source);
        assert_eq!(errors.len(), 1, "{source}: {errors:#?}");
        assert_eq!(errors[0].code, Code::ConflictingAttributes);
        assert_eq!(
            &source[errors[0].span.start..errors[0].span.start + 7],
            "@retry("
        );
        assert_eq!(errors[0].related.len(), 1);
        assert!(errors[0].related[0].span.start < errors[0].span.start);
    }
    // Narrower first is fine, as are policies for other kinds.
    for source in [
        "/// T.\n@retry(times: 1, on: [timeout])\n@retry(times: 2)\ntool t {}\n",
        "/// T.\n@retry(on: [timeout])\n@retry(on: [busy, timeout])\ntool t {}\n",
    ] {
        assert!(errors(source).is_empty(), "{source}");
    }
}

#[test]
fn a_retry_on_must_name_kinds() {
    for (source, at) in [
        ("/// T.\n@retry(on: [])\ntool t {}\n", "[]"),
        ("/// T.\n@retry(on: [1])\ntool t {}\n", "1"),
        ("/// T.\n@retry(on: [\"\"])\ntool t {}\n", "\"\""),
    ] {
        let errors = errors(source);
        assert_eq!(errors.len(), 1, "{source}: {errors:#?}");
        assert_eq!(errors[0].code, Code::InvalidAttributeArgument);
        assert_eq!(&source[errors[0].span.start..errors[0].span.end], at);
    }
    // A single kind, and strings for any kind.
    let tools = Toolset::from_source(
        "/// T.\n@retry(on: timeout)\n@retry(on: [\"rate limited\"])\ntool t {}\n",
    )
    .unwrap();
    let (_, tool) = tools.tool("t").unwrap();
    assert_eq!(tool.retry[0].on, ["timeout"]);
    assert_eq!(tool.retry[1].on, ["rate limited"]);
}

#[test]
fn phronomys_on_schema_error_names_on_invalid() {
    let source = "/// T.\n@on_schema_error(raise)\ntool t {}\n";
    let errors = errors(source);
    let help = errors[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("`@on_invalid`"), "{help}");
    assert_eq!(errors[0].fixes[0].text, "on_invalid");
}

/// A runtime whose `lookup` answers with its count of runs, and that count.
fn counting_lookup(limits: CacheLimits) -> (Runtime, FakeClock, Arc<AtomicU32>) {
    let (rt, clock) = runtime();
    let mut rt = rt.with_cache_limits(limits);
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    rt.register(
        "lookup",
        Handler::sync(move |args| {
            let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(json!({"run": n, "id": args["id"]}))
        }),
    )
    .unwrap();
    (rt, clock, runs)
}

fn lookup(rt: &Runtime, args: &str) -> Reply {
    call(rt, "lookup", args, RunOptions::default()).unwrap()
}

#[test]
fn the_same_normalized_arguments_within_the_ttl_are_served_from_the_cache() {
    let (rt, clock, runs) = counting_lookup(CacheLimits::default());
    let first = lookup(&rt, r#"{"id": "a", "opts": {"a": 1, "b": 2}}"#);
    assert_eq!(first.audit.cache, Some(CacheUse::Miss));
    assert_eq!(first.audit.attempts, 1);
    // Other key order, the default written out: the same normalized arguments.
    clock.advance(Duration::from_secs(299));
    let again = lookup(&rt, r#"{"opts": {"b": 2, "a": 1}, "page": 1, "id": "a"}"#);
    assert_eq!(again.audit.cache, Some(CacheUse::Hit));
    assert_eq!(again.audit.attempts, 0);
    assert_eq!(again.audit.outcome, CallOutcome::Ok);
    assert_eq!(again.content, first.content);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let line = serde_json::to_value(&again.audit).unwrap();
    assert_eq!(line["cache"], "hit");
    // Other arguments are another entry.
    let other = lookup(&rt, r#"{"id": "a", "page": 2}"#);
    assert_eq!(other.audit.cache, Some(CacheUse::Miss));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[test]
fn a_cached_result_expires_after_its_ttl_on_the_clock() {
    let (rt, clock, runs) = counting_lookup(CacheLimits::default());
    lookup(&rt, r#"{"id": "a"}"#);
    clock.advance(Duration::from_secs(300));
    let reply = lookup(&rt, r#"{"id": "a"}"#);
    assert_eq!(reply.audit.cache, Some(CacheUse::Miss));
    assert_eq!(reply.content["run"], 2);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    // The new result is fresh again.
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Hit)
    );
    assert!(clock.waits().is_empty());
}

#[test]
fn errors_are_not_cached() {
    let (rt, _) = runtime();
    let mut rt = rt;
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    rt.register(
        "lookup",
        Handler::sync(move |_| {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(ToolError::new("down"))
            } else {
                Ok(json!("up"))
            }
        }),
    )
    .unwrap();
    let failed = lookup(&rt, r#"{"id": "a"}"#);
    assert!(failed.is_error);
    assert_eq!(failed.audit.cache, Some(CacheUse::Miss));
    let ok = lookup(&rt, r#"{"id": "a"}"#);
    assert_eq!(ok.content, "up");
    assert_eq!(ok.audit.cache, Some(CacheUse::Miss));
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Hit)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[test]
fn the_cache_keeps_at_most_its_entries_dropping_the_least_recently_used() {
    let limits = CacheLimits {
        entries: 2,
        bytes: 1 << 20,
    };
    let (rt, _, runs) = counting_lookup(limits);
    for id in ["a", "b"] {
        lookup(&rt, &format!(r#"{{"id": "{id}"}}"#));
    }
    // `a` used again, so `b` is the least recently used when `c` comes.
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Hit)
    );
    lookup(&rt, r#"{"id": "c"}"#);
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Hit)
    );
    assert_eq!(
        lookup(&rt, r#"{"id": "b"}"#).audit.cache,
        Some(CacheUse::Miss)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[test]
fn the_cache_keeps_at_most_its_bytes() {
    // Room for one entry's key and result, not two.
    let limits = CacheLimits {
        entries: 100,
        bytes: 60,
    };
    let (rt, _, runs) = counting_lookup(limits);
    lookup(&rt, r#"{"id": "a"}"#);
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Hit)
    );
    lookup(&rt, r#"{"id": "b"}"#);
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Miss)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    // No room at all: nothing is cached.
    let none = CacheLimits {
        entries: 0,
        bytes: 1 << 20,
    };
    let (rt, _, _) = counting_lookup(none);
    lookup(&rt, r#"{"id": "a"}"#);
    assert_eq!(
        lookup(&rt, r#"{"id": "a"}"#).audit.cache,
        Some(CacheUse::Miss)
    );
}

#[test]
fn a_tool_without_cache_has_no_cache_in_its_audit() {
    let (reply, _, _) = run_failing("any_kind", ToolError::new("x"));
    assert_eq!(reply.audit.cache, None);
    let line = serde_json::to_value(&reply.audit).unwrap();
    assert!(line.get("cache").is_none());
}

#[test]
fn cache_is_refused_on_a_tool_that_is_not_read_only() {
    for source in [
        "/// T.\n@cache(ttl: \"5m\")\ntool t {}\n",
        "/// T.\n@read_only(false) @cache(ttl: 60)\ntool t {}\n",
        "/// T.\n@cache(ttl: \"1h\") @idempotent\ntool t {}\n",
    ] {
        let errors = errors(source);
        assert_eq!(errors.len(), 1, "{source}: {errors:#?}");
        assert_eq!(errors[0].code, Code::CacheNotReadOnly);
        assert!(
            source[errors[0].span.start..].starts_with("@cache("),
            "{source}"
        );
    }
    let tools =
        Toolset::from_source("/// T.\n@read_only @cache(ttl: \"1500ms\")\ntool t {}\n").unwrap();
    let (_, tool) = tools.tool("t").unwrap();
    assert_eq!(tool.cache.map(|c| c.ttl), Some(Duration::from_millis(1500)));
}

#[test]
fn cache_needs_a_ttl_it_can_read() {
    for source in [
        "/// T.\n@read_only @cache\ntool t {}\n",
        "/// T.\n@read_only @cache(ttl: \"5 minutes\")\ntool t {}\n",
        "/// T.\n@read_only @cache(ttl: \"0s\")\ntool t {}\n",
        "/// T.\n@read_only @cache(ttl: \"1.m\")\ntool t {}\n",
        "/// T.\n@read_only @cache(\"5m\")\ntool t {}\n",
        "/// T.\n@read_only @cache(ttl: \"99999999999999999999d\")\ntool t {}\n",
    ] {
        let errors = errors(source);
        assert_eq!(errors.len(), 1, "{source}: {errors:#?}");
        assert_eq!(errors[0].code, Code::InvalidAttributeArgument, "{source}");
    }
}

/// What a handler saw of its context: the call id, the attempt, the deadline from the start.
type Seen = (Option<String>, u32, Option<Duration>);

#[test]
fn a_handler_gets_the_call_id_the_attempt_and_the_deadline() {
    let (mut rt, clock) = runtime();
    let seen: Arc<std::sync::Mutex<Vec<Seen>>> = Arc::default();
    let record = Arc::clone(&seen);
    let start = {
        use tooldef::runtime::Clock;
        clock.now()
    };
    rt.register(
        "any_kind",
        Handler::with_context(move |_, cx: CallContext| {
            let deadline = cx.deadline().map(|d| d - start);
            record
                .lock()
                .unwrap()
                .push((cx.call_id().map(str::to_string), cx.attempt(), deadline));
            async { Err(ToolError::new("again")) }
        }),
    )
    .unwrap();
    let options = RunOptions::default().call_id("call_7").timeout(secs(10.0));
    let reply = call(&rt, "any_kind", "{}", options).unwrap();
    assert_eq!(reply.audit.call_id.as_deref(), Some("call_7"));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4);
    for (i, (id, attempt, deadline)) in seen.into_iter().enumerate() {
        assert_eq!(id.as_deref(), Some("call_7"));
        assert_eq!(attempt, i as u32 + 1);
        // Each attempt's deadline is its start (no waits between these retries) plus the
        // timeout.
        assert_eq!(deadline, Some(secs(10.0)));
    }
}

#[test]
fn a_handler_sees_its_deadline_pass_on_the_clock_and_its_call_ends_cancelled() {
    let (mut rt, clock) = runtime();
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    let handler_clock = clock.clone();
    rt.register(
        "any_kind",
        Handler::with_context(move |_, cx: CallContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            assert!(!cx.is_cancelled());
            assert_eq!(cx.remaining(), Some(secs(5.0)));
            handler_clock.advance(secs(6.0));
            let stop = cx.is_cancelled() && cx.remaining() == Some(Duration::ZERO);
            async move {
                if stop {
                    Err(ToolError::cancelled())
                } else {
                    Ok(json!("went on"))
                }
            }
        }),
    )
    .unwrap();
    let e = call(
        &rt,
        "any_kind",
        "{}",
        RunOptions::default().timeout(secs(5.0)),
    )
    .unwrap_err();
    assert!(matches!(e.kind, CallErrorKind::Cancelled), "{e}");
    assert_eq!(e.audit.outcome, CallOutcome::Cancelled);
    // `@retry(times: 3)` does not run a cancelled call again.
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn a_sync_handler_polling_its_context_sees_the_call_cancelled() {
    let (mut rt, _) = runtime();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (saw_tx, saw_rx) = std::sync::mpsc::channel();
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    rt.register(
        "any_kind",
        Handler::sync_with_context(move |_, cx| {
            counted.fetch_add(1, Ordering::SeqCst);
            let _ = started_tx.send(());
            while !cx.is_cancelled() {
                std::thread::yield_now();
            }
            let _ = saw_tx.send(cx.cancel_token().is_cancelled());
            Err(ToolError::cancelled())
        }),
    )
    .unwrap();
    let token = CancelToken::new();
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            // Cancels once the handler runs.
            if started_rx.recv().is_ok() {
                token.cancel();
            }
        })
    };
    let e = call(&rt, "any_kind", "{}", RunOptions::default().cancel(token)).unwrap_err();
    canceller.join().unwrap();
    assert!(matches!(e.kind, CallErrorKind::Cancelled));
    assert_eq!(e.audit.attempts, 1);
    // The handler's thread saw its context cancelled, and stopped.
    assert_eq!(saw_rx.recv_timeout(Duration::from_secs(60)), Ok(true));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// A runtime where `finish` halts the loop and `echo` counts its runs.
fn halting_runtime() -> (Runtime, Arc<AtomicU32>) {
    let (mut rt, _) = runtime();
    rt.register(
        "finish",
        Handler::sync_with_context(|args, cx| {
            cx.set_metadata(
                "summary_chars",
                json!(args["summary"].as_str().map_or(0, str::len)),
            );
            cx.halt("the task is finished");
            Ok(json!("finished"))
        }),
    )
    .unwrap();
    let echoed = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&echoed);
    rt.register(
        "echo",
        Handler::sync(move |args| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(args["text"].clone())
        }),
    )
    .unwrap();
    (rt, echoed)
}

fn openai_response(calls: &[(&str, &str, Value)]) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "tool_calls":
        calls.iter().map(|(id, name, args)| json!({"id": id, "type": "function",
            "function": {"name": name, "arguments": args.to_string()}})).collect::<Vec<_>>()}}]})
}

#[test]
fn a_halt_stops_the_turn_and_later_calls_are_answered_without_running() {
    let (rt, echoed) = halting_runtime();
    let response = openai_response(&[
        ("c1", "echo", json!({"text": "one"})),
        ("c2", "finish", json!({"summary": "done"})),
        ("c3", "echo", json!({"text": "three"})),
        ("c4", "echo", json!({"text": "four"})),
    ]);
    let turn =
        block_on(rt.run_response(Provider::OpenAi, &response, &RunOptions::default())).unwrap();
    assert_eq!(echoed.load(Ordering::SeqCst), 1);
    assert_eq!(turn.halted, Some(1));
    let finish = &turn.calls[1];
    assert_eq!(finish.halted(), Some("the task is finished"));
    let reply = finish.outcome.as_ref().unwrap();
    assert_eq!(reply.content, "finished");
    assert_eq!(reply.metadata["summary_chars"], 4);
    assert_eq!(reply.audit.call_id.as_deref(), Some("c2"));
    for skipped in &turn.calls[2..] {
        let reply = skipped.outcome.as_ref().unwrap();
        assert!(reply.is_error);
        assert_eq!(reply.audit.outcome, CallOutcome::NotRun);
        assert_eq!(reply.audit.attempts, 0);
        let text = reply.content.as_str().unwrap();
        assert!(text.contains("`finish` halted the loop"), "{text}");
        assert!(text.contains("the task is finished"), "{text}");
    }
    // Every call still gets its reply, in order.
    assert_eq!(turn.messages.len(), 4);
    assert_eq!(turn.messages[3]["tool_call_id"], "c4");
    let out = turn.to_json();
    assert_eq!(
        out["halted"],
        json!({"id": "c2", "tool": "finish", "reason": "the task is finished"})
    );
    assert_eq!(out["calls"][1]["halted"], "the task is finished");
    assert_eq!(out["calls"][1]["audit"]["halted"], "the task is finished");
    assert_eq!(out["calls"][1]["metadata"], json!({"summary_chars": 4}));
    assert_eq!(out["calls"][2]["audit"]["outcome"], "not_run");
}

#[test]
fn a_turn_without_a_halt_runs_every_call() {
    let (rt, echoed) = halting_runtime();
    let response = openai_response(&[
        ("c1", "echo", json!({"text": "one"})),
        ("c2", "echo", json!({"text": "two"})),
    ]);
    let turn =
        block_on(rt.run_response(Provider::OpenAi, &response, &RunOptions::default())).unwrap();
    assert_eq!(echoed.load(Ordering::SeqCst), 2);
    assert_eq!(turn.halted, None);
    assert!(turn.to_json().get("halted").is_none());
    assert!(turn.all_succeeded());
}

#[test]
fn a_failed_attempt_that_halts_is_not_retried() {
    let (mut rt, _) = runtime();
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    rt.register(
        "finish",
        Handler::sync_with_context(move |_, cx| {
            counted.fetch_add(1, Ordering::SeqCst);
            cx.halt("give up");
            Err(ToolError::new("cannot finish"))
        }),
    )
    .unwrap();
    let reply = call(&rt, "finish", r#"{"summary": "x"}"#, RunOptions::default()).unwrap();
    assert!(reply.is_error);
    assert_eq!(reply.audit.halted.as_deref(), Some("give up"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// A cap on the calls running at once answers the call past it "busy" at once, and the place
/// comes back when a running call ends.
#[test]
fn calls_past_the_concurrency_cap_are_answered_busy() {
    use tooldef::runtime::{CallOutcome, ConcurrencyLimits, Handler, Runtime};
    let set = Arc::new(
        Toolset::from_source(
            "/// Wait.\ntool wait {\n  /// Which.\n  n: integer\n}\n/// Other.\ntool other {\n  /// Which.\n  n: integer\n}\n",
        )
        .unwrap(),
    );
    for (limits, second_tool, busy) in [
        (
            ConcurrencyLimits {
                total: Some(1),
                per_tool: None,
            },
            "other",
            true,
        ),
        (
            ConcurrencyLimits {
                total: None,
                per_tool: Some(1),
            },
            "wait",
            true,
        ),
        (
            ConcurrencyLimits {
                total: None,
                per_tool: Some(1),
            },
            "other",
            false,
        ),
        (ConcurrencyLimits::default(), "wait", false),
    ] {
        let (release, gate) = futures::channel::oneshot::channel::<()>();
        let gate = Arc::new(std::sync::Mutex::new(Some(gate)));
        let mut runtime = Runtime::new(Arc::clone(&set)).with_concurrency(limits);
        let held = Arc::clone(&gate);
        runtime
            .register(
                "wait",
                Handler::new(move |args: Value| {
                    let gate = held.lock().unwrap().take();
                    async move {
                        if let Some(gate) = gate {
                            let _ = gate.await;
                        }
                        Ok(args)
                    }
                }),
            )
            .unwrap();
        runtime.register("other", Handler::sync(Ok)).unwrap();
        block_on(async {
            let args = json!({"n": 1});
            let first = runtime.call("wait", &args, Default::default());
            futures::pin_mut!(first);
            // Start the first call: it waits on the gate, holding its place.
            assert!(futures::FutureExt::now_or_never(first.as_mut()).is_none());
            let second = runtime
                .call(second_tool, &json!({"n": 2}), Default::default())
                .await
                .expect("answered");
            assert_eq!(
                second.audit.outcome == CallOutcome::Busy,
                busy,
                "{limits:?} {second_tool}"
            );
            if busy {
                assert!(second.is_error);
                assert!(
                    second.content.as_str().unwrap().contains("busy"),
                    "{}",
                    second.content
                );
            }
            release.send(()).unwrap();
            let first = first.await.expect("ran");
            assert_eq!(first.audit.outcome, CallOutcome::Ok);
            // The place came back.
            let third = runtime
                .call(second_tool, &json!({"n": 3}), Default::default())
                .await
                .expect("ran");
            assert_eq!(third.audit.outcome, CallOutcome::Ok, "{limits:?}");
        });
    }
}
