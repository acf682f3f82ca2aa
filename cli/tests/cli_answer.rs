//! `tooldef schema` and `tooldef parse`: output and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const CALENDAR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/calendar.tool");

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    if let Some(text) = stdin {
        // The command may exit before it reads (a source with errors): a closed pipe is fine.
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes());
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("finished")
}

fn stdout_json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn schema_prints_each_providers_block() {
    for (target, probe) in [
        ("openai", "/json_schema/strict"),
        ("openai-responses", "/format/strict"),
        ("anthropic", "/type"),
        ("gemini", "/responseMimeType"),
    ] {
        let o = run(
            &[
                "schema", CALENDAR, "--type", "Place", "--target", target, "--format", "json",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{target}");
        assert!(stdout_json(&o).pointer(probe).is_some(), "{target}");
    }
    let o = run(
        &[
            "schema",
            CALENDAR,
            "--tool",
            "create_event",
            "--target",
            "openai",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout_json(&o)["json_schema"]["name"], "create_event");
    // An enum cannot be an OpenAI root; an unknown type is named with a suggestion.
    let o = run(
        &[
            "schema", CALENDAR, "--type", "Priority", "--target", "openai",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let o = run(
        &["schema", CALENDAR, "--type", "Plac", "--target", "gemini"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Place"));
    // --type and --tool together are a usage error.
    let o = run(
        &[
            "schema", CALENDAR, "--type", "Place", "--tool", "x", "--target", "gemini",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn parse_checks_an_answer() {
    let o = run(
        &["parse", CALENDAR, "--type", "Place", "--json"],
        Some(r#"{"name": "Room 1", "lat": 48.8}"#),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout_json(&o)["value"],
        json!({"name": "Room 1", "lat": 48.8})
    );
    // Invalid: exit 1 and the message for the model.
    let o = run(
        &["parse", CALENDAR, "--type", "Place"],
        Some(r#"{"lat": 95}"#),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("name"));
    // Almost-JSON: refused in strict mode, repaired in lax mode.
    let fenced = "Sure:\n```json\n{'name': 'Room 1',}\n```";
    let o = run(&["parse", CALENDAR, "--type", "Place"], Some(fenced));
    assert_eq!(o.status.code(), Some(1));
    let o = run(
        &["parse", CALENDAR, "--type", "Place", "--lax", "--json"],
        Some(fenced),
    );
    assert_eq!(o.status.code(), Some(0));
    let v = stdout_json(&o);
    assert_eq!(v["value"], json!({"name": "Room 1"}));
    assert_eq!(v["repairs"].as_array().map(Vec::len), Some(4));
    // OpenAI's answers hold `null` for absent keys.
    let answer = r#"{"name": "Room 1", "lat": null}"#;
    let o = run(&["parse", CALENDAR, "--type", "Place"], Some(answer));
    assert_eq!(o.status.code(), Some(1));
    let o = run(
        &["parse", CALENDAR, "--type", "Place", "--target", "openai"],
        Some(answer),
    );
    assert_eq!(o.status.code(), Some(0));
    // A source with errors is exit 2, unlike an invalid answer.
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.tool");
    std::fs::write(&bad, "tool {").expect("written");
    let o = run(
        &["parse", &bad.display().to_string(), "--type", "X"],
        Some("{}"),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn schema_via_tool_forces_one_tool_and_parse_reads_its_call() {
    for (target, tools, choice) in [
        ("anthropic", "/tools/0/input_schema", "/tool_choice/name"),
        (
            "openai",
            "/tools/0/function/parameters",
            "/tool_choice/function/name",
        ),
        (
            "openai-strict",
            "/tools/0/function/strict",
            "/tool_choice/function/name",
        ),
        (
            "openai-responses",
            "/tools/0/parameters",
            "/tool_choice/name",
        ),
        (
            "gemini",
            "/tools/0/functionDeclarations/0/parametersJsonSchema",
            "/toolConfig/functionCallingConfig/allowedFunctionNames/0",
        ),
        (
            "gemini-openapi",
            "/tools/0/functionDeclarations/0/parameters",
            "/toolConfig/functionCallingConfig/allowedFunctionNames/0",
        ),
    ] {
        let o = run(
            &[
                "schema",
                CALENDAR,
                "--type",
                "Place",
                "--target",
                target,
                "--via-tool",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{target}");
        let fields = stdout_json(&o);
        assert!(fields.pointer(tools).is_some(), "{target}: {fields}");
        assert_eq!(fields.pointer(choice), Some(&json!("Place")), "{target}");
        assert_eq!(
            fields["tools"].as_array().map(Vec::len),
            Some(1),
            "{target}"
        );
    }
    // A tool's output is answered through `<tool>_output`, never the tool's own name.
    let o = run(
        &[
            "schema",
            CALENDAR,
            "--tool",
            "create_event",
            "--target",
            "anthropic",
            "--via-tool",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout_json(&o)["tool_choice"]["name"],
        "create_event_output"
    );

    // The answer is read from the forced tool's call; other blocks are skipped.
    let response = json!({"content": [
        {"type": "text", "text": "Here it is."},
        {"type": "tool_use", "id": "toolu_1", "name": "Place", "input": {"name": "Room 1"}}
    ]})
    .to_string();
    let parse = |extra: &[&str], response: &str| {
        let mut args = vec![
            "parse",
            CALENDAR,
            "--type",
            "Place",
            "--target",
            "anthropic",
            "--via-tool",
        ];
        args.extend_from_slice(extra);
        run(&args, Some(response))
    };
    let o = parse(&["--json"], &response);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(stdout_json(&o)["value"], json!({"name": "Room 1"}));
    // A bad answer is invalid with a message for the model.
    let bad = response.replace("\"Room 1\"", "\"\"");
    let o = parse(&["--json"], &bad);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout_json(&o)["valid"], false);
    // No call to the tool: invalid, saying which tool to call.
    let o = parse(&[], r#"{"content": [{"type": "text", "text": "no"}]}"#);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no call to `Place`"));
    // Not the provider's shape: a usage error naming where.
    let o = parse(&[], r#"{"content": 7}"#);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("/content"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // `--via-tool` needs a target; an answer that is not an object cannot be forced.
    let o = run(
        &["parse", CALENDAR, "--type", "Place", "--via-tool"],
        Some("{}"),
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(
        &[
            "schema",
            CALENDAR,
            "--type",
            "Priority",
            "--target",
            "anthropic",
            "--via-tool",
        ],
        None,
    );
    // As for any block the target cannot give: the errors exit code.
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not an object"));
}
