//! `tooldef dispatch` on the real binary: each provider, each exit code.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/envelopes")
}

fn tool() -> String {
    fixtures().join("weather.tool").display().to_string()
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .arg("dispatch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tooldef");
    {
        let mut input = child.stdin.take().expect("stdin");
        if let Some(text) = stdin {
            // The binary may exit before reading (tool files with errors): a closed pipe here
            // is its answer, not the test's failure.
            let _ = input.write_all(text.as_bytes());
        }
    }
    child.wait_with_output().expect("wait")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn each_provider_reads_its_golden_response() {
    for provider in ["openai", "openai-responses", "anthropic", "gemini", "mcp"] {
        let response = fixtures().join(format!("{provider}.json"));
        let out = run(
            &[&tool(), response.to_str().unwrap(), "--from", provider],
            None,
        );
        // Every golden response holds a bad call: exit 1, one reply per bad call.
        assert_eq!(out.status.code(), Some(1), "{provider}");
        let doc = json(&out);
        let calls = doc["calls"].as_array().unwrap();
        let bad = calls.iter().filter(|c| c["valid"] == false).count();
        assert!(bad > 0, "{provider}");
        assert_eq!(doc["replies"].as_array().unwrap().len(), bad, "{provider}");
        for c in calls {
            assert!(
                c.get("id").is_some(),
                "{provider}: every call has an id (or null)"
            );
            if c["valid"] == true {
                assert!(c["arguments"].is_object() && c["coercions"].is_array());
            } else {
                assert!(c["errors"].is_array() && c["message"].is_string());
            }
        }
    }
}

#[test]
fn exit_0_when_every_call_is_valid_reading_standard_input() {
    let response = r#"{"content": [{"type": "text", "text": "On it."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {"timezone": "UTC"}}]}"#;
    let out = run(&[&tool(), "--from", "anthropic"], Some(response));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    assert_eq!(doc["calls"][0]["id"], "toolu_1");
    assert_eq!(doc["calls"][0]["arguments"]["timezone"], "UTC");
    assert_eq!(doc["replies"], serde_json::json!([]));
    // `-` says the same.
    let out = run(&[&tool(), "-", "--from", "anthropic"], Some(response));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn the_target_decides_how_null_is_read() {
    let response = r#"{"output": [{"type": "function_call", "call_id": "c1", "name": "get_weather",
        "arguments": "{\"location\": \"Oslo\", \"unit\": null}"}]}"#;
    let source = run(&[&tool(), "--from", "openai-responses"], Some(response));
    assert_eq!(source.status.code(), Some(1));
    let strict = run(
        &[
            &tool(),
            "--from",
            "openai-responses",
            "--target",
            "openai-responses",
        ],
        Some(response),
    );
    assert_eq!(
        strict.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    assert_eq!(json(&strict)["calls"][0]["arguments"]["unit"], "celsius");
    let lax = run(
        &[&tool(), "--from", "openai-responses", "--lax"],
        Some(response),
    );
    assert_eq!(lax.status.code(), Some(0));
    assert_eq!(
        json(&lax)["calls"][0]["coercions"][0]["rule"],
        "null-as-absent"
    );
}

#[test]
fn exit_2_for_a_malformed_response_usage_and_io() {
    let out = run(&[&tool(), "--from", "openai"], Some(r#"{"choices": 3}"#));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/choices"), "{err}");
    assert!(out.stdout.is_empty());

    let out = run(&[&tool(), "--from", "openai"], Some("{\"choices\": ["));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid JSON"));

    let out = run(&[&tool(), "--from", "cohere"], Some("{}"));
    assert_eq!(out.status.code(), Some(2), "unknown provider");

    let out = run(&["/nonexistent/x.tool", "--from", "openai"], Some("{}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn tool_files_with_errors_are_reported_with_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tool");
    std::fs::write(&bad, "/// A tool.\ntool t { a: strng }\n").unwrap();
    let out = run(&[bad.to_str().unwrap(), "--from", "openai"], Some("{}"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.tool") && err.contains("unknown-type"),
        "{err}"
    );
}

#[test]
fn several_tool_files_make_one_set() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.tool");
    std::fs::write(&other, "/// Say hello.\ntool greet { name: string }\n").unwrap();
    let response = r#"{"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "Ada"}}}"#;
    let out = run(
        &[&tool(), other.to_str().unwrap(), "--from", "mcp"],
        Some(response),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["calls"][0]["id"], 9);
    // The same tool in two files is an error naming both (a file named twice is read once).
    let again = dir.path().join("again.tool");
    std::fs::copy(&other, &again).unwrap();
    let out = run(
        &[
            &tool(),
            other.to_str().unwrap(),
            again.to_str().unwrap(),
            "--from",
            "mcp",
        ],
        Some(response),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("defined in two files"));
}

/// `--run`: every call runs through its binding and the output gains the messages to append;
/// a `@requires_approval` call runs only with `--approve`.
#[test]
fn run_executes_the_calls_and_builds_the_next_message() {
    let mcp = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
    let tools = mcp.join("tools.tool");
    let bindings = mcp.join("bindings.toml");
    let response = r#"{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 2}},
        {"type": "tool_use", "id": "t2", "name": "delete_file", "input": {"path": "/tmp/none"}}]}"#;
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v = vec![
            tools.display().to_string(),
            "--from".into(),
            "anthropic".into(),
            "--run".into(),
            bindings.display().to_string(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let plain = args(&[]);
    let out = run(
        &plain.iter().map(String::as_str).collect::<Vec<_>>(),
        Some(response),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    let message = &doc["messages"][0];
    assert_eq!(message["role"], "user");
    assert_eq!(message["content"][0]["tool_use_id"], "t1");
    assert_eq!(message["content"][0]["content"], r#"{"sum":3}"#);
    assert_eq!(message["content"][1]["is_error"], true);
    assert!(
        message["content"][1]["content"]
            .as_str()
            .is_some_and(|t| t.contains("--approve delete_file")),
        "{doc}"
    );
    assert_eq!(doc["calls"][1]["audit"]["approved"], false, "{doc}");

    let approved = args(&["--approve", "delete_file"]);
    let out = run(
        &approved.iter().map(String::as_str).collect::<Vec<_>>(),
        Some(response),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    assert_eq!(
        doc["messages"][0]["content"][1]["content"],
        r#"{"deleted":"/tmp/none"}"#
    );

    let wrong = args(&["--approve", "delete_fil"]);
    let out = run(
        &wrong.iter().map(String::as_str).collect::<Vec<_>>(),
        Some(response),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `delete_file`"));
}

#[test]
fn anthropic_strict_calls_are_read_in_the_shape_strict_mode_showed() {
    let dir = std::env::temp_dir().join(format!("tooldef-astrict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("tag.tool");
    std::fs::write(
        &file,
        "/// Tag a page.\ntool tag {\n  page: string\n  labels: map<string>\n  limit?: integer = 5\n}\n",
    )
    .expect("the tool file is written");
    let file = file.display().to_string();
    // The map comes as key/value entries, the optional field left out.
    let response = r#"{"content": [{"type": "tool_use", "id": "t1", "name": "tag",
        "input": {"page": "home", "labels": [{"key": "a", "value": "b"}]}}]}"#;
    let strict = run(
        &[&file, "--from", "anthropic", "--target", "anthropic-strict"],
        Some(response),
    );
    assert_eq!(
        strict.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    assert_eq!(
        json(&strict)["calls"][0]["arguments"],
        serde_json::json!({"page": "home", "labels": {"a": "b"}, "limit": 5})
    );
    // The plain anthropic target showed a map, so entries are not its shape.
    let plain = run(&[&file, "--from", "anthropic"], Some(response));
    assert_eq!(plain.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
