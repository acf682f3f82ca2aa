//! `tooldef validate`: output and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const TOOL: &str = r#"
/// Return the weather.
tool get_weather {
  /// The city.
  city: string
  days?: integer @min(1) @max(14) = 1
}
/// Lenient.
@lax
tool lenient { n: integer }
"#;

/// A temporary folder holding the tool file (and the argument files a test writes); removed
/// when dropped.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        let dir = tempfile::Builder::new()
            .prefix("tooldef-cli-validate-")
            .tempdir()
            .expect("temp dir");
        std::fs::write(dir.path().join("w.tool"), TOOL).expect("write tool");
        Files { dir }
    }
    fn write(&self, name: &str, text: &str) -> String {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    }
    fn tool(&self) -> String {
        self.dir.path().join("w.tool").display().to_string()
    }
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    if let Some(mut pipe) = child.stdin.take() {
        // The command may exit before reading (usage errors): a broken pipe is fine.
        let _ = pipe.write_all(stdin.unwrap_or("").as_bytes());
    }
    child.wait_with_output().expect("finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn valid_prints_normalized_arguments() {
    let f = Files::new();
    let args = f.write("a.json", r#"{"city": "Oslo"}"#);
    let o = run(
        &["validate", &f.tool(), "--tool", "get_weather", &args],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v, json!({"city": "Oslo", "days": 1}));
}

#[test]
fn invalid_prints_the_message() {
    let f = Files::new();
    let o = run(
        &["validate", &f.tool(), "--tool", "get_weather", "-"],
        Some(r#"{"cty": "Oslo", "days": 0}"#),
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("3 problems"), "{out}");
    assert!(out.contains("did you mean `city`?"), "{out}");
    assert!(
        out.contains("Signature: get_weather(city: string, days?: integer 1..14 = 1)"),
        "{out}"
    );
}

#[test]
fn json_format_valid_and_invalid() {
    let f = Files::new();
    let o = run(
        &[
            "validate",
            &f.tool(),
            "--tool",
            "get_weather",
            "--lax",
            "--format",
            "json",
        ],
        Some(r#"{"city": "Oslo", "days": "3"}"#),
    );
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(
        v,
        json!({
            "valid": true,
            "arguments": {"city": "Oslo", "days": 3},
            "coercions": [{"path": "/days", "rule": "integer-from-string", "from": "3", "to": 3}],
            "repairs": [],
            "message": null
        })
    );
    let o = run(
        &[
            "validate",
            &f.tool(),
            "--tool",
            "get_weather",
            "--strict",
            "--format",
            "json",
        ],
        Some(r#"{"city": "Oslo", "days": "3"}"#),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["valid"], json!(false));
    assert_eq!(v["coercions"], json!([]));
    assert_eq!(
        v["errors"],
        json!([{"path": "/days", "code": "wrong-type", "message": "must be an integer, got string \"3\"; write the number without quotes"}])
    );
    assert!(v["message"]
        .as_str()
        .is_some_and(|m| m.contains("Signature:")));
    assert!(v.get("arguments").is_none());
}

#[test]
fn mode_defaults_to_the_tools_attribute() {
    let f = Files::new();
    let o = run(
        &["validate", &f.tool(), "--tool", "lenient"],
        Some(r#"{"n": "4"}"#),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("coerced /n (integer-from-string)"));
    let o = run(
        &["validate", &f.tool(), "--tool", "lenient", "--strict"],
        Some(r#"{"n": "4"}"#),
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn usage_io_and_compile_errors_exit_2() {
    let f = Files::new();
    let bad_tool = f.write("bad.tool", "tool t { a: strng }");
    let cases: Vec<Vec<String>> = vec![
        vec!["validate".into(), f.tool(), "--tool".into(), "nope".into()],
        vec![
            "validate".into(),
            f.tool(),
            "--tool".into(),
            "get_weather".into(),
            "/no/such/file.json".into(),
        ],
        vec![
            "validate".into(),
            "/no/such.tool".into(),
            "--tool".into(),
            "x".into(),
        ],
        vec!["validate".into(), bad_tool, "--tool".into(), "t".into()],
        vec![
            "validate".into(),
            f.tool(),
            "--tool".into(),
            "get_weather".into(),
            "--lax".into(),
            "--strict".into(),
        ],
        vec!["validate".into(), f.tool()],
    ];
    for args in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&refs, Some("{}"));
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn unreadable_arguments_are_invalid_not_usage() {
    let f = Files::new();
    let o = run(
        &[
            "validate",
            &f.tool(),
            "--tool",
            "get_weather",
            "--format",
            "json",
        ],
        Some("{\"city\": "),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["errors"][0]["code"], json!("invalid-json"));
}
