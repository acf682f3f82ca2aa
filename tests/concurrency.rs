//! One toolset shared by 8 threads validating every BFCL ground-truth call (and a broken twin of
//! each) gives exactly the single-threaded verdicts, arguments and messages.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use tooldef::validate::Mode;
use tooldef::{Source, Toolset};

#[path = "support/corpus.rs"]
mod shared;

fn corpus() -> Option<PathBuf> {
    shared::corpus("concurrency test")
}

/// What a call gives: the normalized arguments, or every error and the message.
fn outcome(tools: &Toolset, name: &str, args: &str) -> Result<Value, (Vec<String>, String)> {
    let v = tools.validator(name).expect("a tool of the set");
    match v.validate_str(args, Mode::Strict) {
        Ok(ok) => Ok(ok.into_arguments()),
        Err(e) => Err((
            e.errors
                .iter()
                .map(|x| format!("{} {}", x.path, x.message()))
                .collect(),
            e.message(),
        )),
    }
}

#[test]
fn eight_threads_give_the_single_threaded_answers() {
    let Some(root) = corpus() else { return };
    let mut sources = Vec::new();
    let mut calls: Vec<(String, String)> = Vec::new();
    let mut names = std::collections::HashSet::new();
    for cat in ["simple_python", "multiple", "live_simple", "live_multiple"] {
        let path = root.join(format!("bfcl/derived/{cat}.calls.jsonl"));
        let text = std::fs::read_to_string(&path).expect("the corpus file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let call: Value = serde_json::from_str(line).expect("JSON");
            let id = call["id"].as_str().unwrap_or_default();
            // One tool per call, named after the call, so the set holds them all.
            let name = format!("t_{}", id.replace(['-', '.'], "_"));
            if !names.insert(name.clone()) {
                continue;
            }
            let doc = json!([{"type": "function", "function": {
                "name": name, "description": "A function.", "parameters": call["json_schema"]}}]);
            let Ok(imported) = tooldef::import::import(
                &doc,
                tooldef::import::Dialect::OpenAi,
                &tooldef::import::Options::default(),
            ) else {
                continue;
            };
            sources.push(Source::new(format!("{name}.tool"), imported.source));
            let args = call["args"].to_string();
            // A twin with every value replaced by a string, to have messages too.
            let twin = match &call["args"] {
                Value::Object(m) => Value::Object(
                    m.iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.to_string())))
                        .collect(),
                )
                .to_string(),
                other => other.to_string(),
            };
            calls.push((name.clone(), args));
            calls.push((name, twin));
        }
    }
    let tools = Arc::new(Toolset::new(sources).expect("the set compiles"));
    let expected: Vec<_> = calls.iter().map(|(n, a)| outcome(&tools, n, a)).collect();
    let invalid = expected.iter().filter(|e| e.is_err()).count();
    assert!(
        calls.len() > 2000 && invalid > 500,
        "{} calls, {invalid} invalid",
        calls.len()
    );
    let calls = Arc::new(calls);
    let expected = Arc::new(expected);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (tools, calls, expected) = (
                Arc::clone(&tools),
                Arc::clone(&calls),
                Arc::clone(&expected),
            );
            std::thread::spawn(move || {
                // Each thread starts at another place, so threads meet on the same validators.
                let n = calls.len();
                for k in 0..n {
                    let i = (k + t * n / 8) % n;
                    let (name, args) = &calls[i];
                    assert_eq!(
                        outcome(&tools, name, args),
                        expected[i],
                        "thread {t}, call {i}"
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread agrees");
    }
}
