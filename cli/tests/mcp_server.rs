//! `tooldef serve` as clients see it: the MCP Python SDK drives the server over stdio and over
//! streamable HTTP (`tests/mcp/client.py` records what it saw, the assertions are here), and
//! bindings errors stop the server at startup.
//!
//! The Python tests skip with a notice when python3 or the `mcp` package (2.x) is missing,
//! except when `CI=true`, where that is a failure.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use tooldef::emit::{self, Options, Target};

const BIN: &str = env!("CARGO_BIN_EXE_tooldef");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether the MCP Python SDK can be used; prints why not (or panics in CI).
fn python_with_mcp() -> bool {
    let check = "import sys, importlib.metadata as m\n\
                 import mcp.client.stdio, mcp.client.streamable_http, httpx2\n\
                 sys.exit(0 if int(m.version('mcp').split('.')[0]) >= 2 else 1)";
    let why = match Command::new("python3").args(["-c", check]).output() {
        Err(e) => format!("python3 cannot run: {e}"),
        Ok(out) if out.status.success() => return true,
        Ok(_) => "the Python package mcp (2.x) is not installed (pip install 'mcp>=2.3')".into(),
    };
    if in_ci() {
        panic!("{why}; CI must run the MCP client tests");
    }
    eprintln!("skipping the MCP Python client test: {why}");
    false
}

/// The tools as the `mcp` target emits them for the fixture.
fn expected_tools() -> Vec<Value> {
    let source = std::fs::read_to_string(fixtures().join("tools.tool")).expect("tools.tool");
    let module = tooldef::compile(&source)
        .expect("tools.tool compiles")
        .module;
    let emitted = emit::tools(&module, Target::Mcp, &Options::default()).expect("mcp target");
    emitted.json["tools"]
        .as_array()
        .expect("a tools array")
        .clone()
}

/// The fields of a listed tool that the target decides.
fn listed_fields(tool: &Value) -> Value {
    let keys = [
        "name",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ];
    Value::Object(
        keys.iter()
            .filter_map(|k| tool.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect(),
    )
}

/// The audit records among the lines of a server's standard error.
fn audit_records(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("tool").is_some())
        .collect()
}

fn text(call: &Value) -> String {
    call["text"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// What every transport must show the client (`out` is client.py's record) and log.
fn check_session(out: &Value, stderr: &str) {
    let show = |what: &str| {
        format!(
            "{what}: {}",
            serde_json::to_string_pretty(&out[what]).unwrap()
        )
    };

    assert_eq!(out["init"]["server"], "tooldef", "{}", show("init"));
    assert_eq!(
        out["init"]["instructions"],
        "Tools for testing `tooldef serve`: each handler is a small script in handlers/.",
        "{}",
        show("init")
    );

    // --page-size 2: four pages, all seven tools, as the mcp target emits them.
    assert_eq!(out["pages"], 4, "pages followed through next_cursor");
    let listed: Vec<Value> = out["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(listed_fields)
        .collect();
    let expected: Vec<Value> = expected_tools().iter().map(listed_fields).collect();
    assert_eq!(listed.len(), 7);
    assert_eq!(listed, expected, "tools/list differs from the mcp target");

    // The handler echoes what it received: the default is filled in.
    assert_eq!(out["echo"]["is_error"], false, "{}", show("echo"));
    assert_eq!(
        out["echo"]["structured"],
        json!({"received": {"message": "hi", "times": 1, "tags": ["a"]}}),
        "{}",
        show("echo")
    );
    assert_eq!(
        out["add"]["structured"],
        json!({"sum": 3}),
        "{}",
        show("add")
    );

    assert_eq!(out["invalid"]["is_error"], true, "{}", show("invalid"));
    assert!(
        text(&out["invalid"]).contains("`message`: must be at least 1 character long, got 0"),
        "{}",
        show("invalid")
    );

    assert_eq!(out["unknown"]["code"], -32602, "{}", show("unknown"));
    assert!(
        out["unknown"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool `ech`") && m.contains("`echo`")),
        "{}",
        show("unknown")
    );

    assert_eq!(out["crash"]["is_error"], true, "{}", show("crash"));
    assert!(
        text(&out["crash"]).contains("exited with status 3: something broke: boom"),
        "the crash's message holds the end of its stderr: {}",
        show("crash")
    );

    assert_eq!(
        out["wrong_output"]["is_error"],
        true,
        "{}",
        show("wrong_output")
    );
    assert!(
        text(&out["wrong_output"]).contains("does not fit its output type `{sum: number}`"),
        "{}",
        show("wrong_output")
    );

    assert_eq!(out["unbound"]["is_error"], true, "{}", show("unbound"));
    assert!(
        text(&out["unbound"]).contains("add a [tools.unbound] table to")
            && text(&out["unbound"]).contains("bindings.toml"),
        "{}",
        show("unbound")
    );

    // Timeout: 1.5 s allowed, 5 s asked; the handler's process is gone.
    let t = &out["timeout"];
    assert_eq!(t["is_error"], true, "{}", show("timeout"));
    assert!(
        text(t).contains("did not finish within 1500 ms"),
        "{}",
        show("timeout")
    );
    let secs = t["seconds"].as_f64().unwrap();
    assert!((1.4..4.0).contains(&secs), "{}", show("timeout"));
    assert_eq!(t["pid_seen"], true, "{}", show("timeout"));
    assert_eq!(t["killed"], true, "the timed-out handler still runs");

    // Cancellation: notifications/cancelled kills the handler.
    assert_eq!(out["cancel"]["pid_seen"], true, "{}", show("cancel"));
    assert_eq!(
        out["cancel"]["killed"],
        true,
        "the cancelled handler still runs: {}",
        show("cancel")
    );

    // Progress: a 1.1 s call reports at least twice (every 500 ms).
    let p = &out["progress"];
    assert_eq!(p["is_error"], false, "{}", show("progress"));
    let notes = p["notes"].as_array().unwrap();
    assert!(notes.len() >= 2, "{}", show("progress"));
    assert!(notes
        .iter()
        .all(|n| n["message"] == "`slow` is running" && n["progress"].as_f64() > Some(0.0)));

    // Approval through elicitation.
    assert_eq!(
        out["approve_accept"]["structured"],
        json!({"deleted": "/x"}),
        "{}",
        show("approve_accept")
    );
    assert_eq!(out["approve_decline"]["is_error"], true);
    assert!(
        text(&out["approve_decline"]).contains("the user declined"),
        "{}",
        show("approve_decline")
    );
    assert_eq!(out["approval_asked"].as_array().map(Vec::len), Some(2));
    assert!(out["approval_asked"][0]
        .as_str()
        .unwrap()
        .contains("Allow the tool `delete_file`"));
    assert_eq!(out["approve_unsupported"]["is_error"], true);
    assert!(
        text(&out["approve_unsupported"]).contains("requires approval"),
        "{}",
        show("approve_unsupported")
    );
    assert_eq!(out["after"]["structured"], json!({"sum": 3}));

    // The audit log: one record a call, with the outcomes the client saw.
    let records = audit_records(stderr);
    let outcomes: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap_or("").to_string(),
                r["outcome"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    for want in [
        ("echo", "ok"),
        ("echo", "invalid"),
        ("ech", "unknown-tool"),
        ("crash", "error"),
        ("slow", "timed_out"),
        ("slow", "cancelled"),
        ("delete_file", "refused"),
        ("delete_file", "ok"),
    ] {
        assert!(
            outcomes.contains(&(want.0.to_string(), want.1.to_string())),
            "no audit record {want:?} in {outcomes:?}"
        );
    }
    assert_eq!(records.len(), 14, "one record a call: {outcomes:?}");
}

/// Runs client.py and parses the JSON it prints.
fn run_client(args: &[&str], pid_dir: &Path) -> (Value, String) {
    let out = Command::new("python3")
        .arg(fixtures().join("client.py"))
        .args(args)
        .env("TOOLDEF_TEST_PID_DIR", pid_dir)
        .current_dir(fixtures())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "client.py failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("client.py printed no JSON ({e}):\n{stdout}\n{stderr}"));
    (value, stderr)
}

#[test]
fn python_client_over_stdio() {
    if !python_with_mcp() {
        return;
    }
    let pids = tempfile::tempdir().unwrap();
    // The SDK starts the server; the server's stderr (its audit log) is the client's.
    let (out, stderr) = run_client(
        &[
            "stdio",
            "--",
            BIN,
            "serve",
            "tools.tool",
            "--bind",
            "bindings.toml",
            "--log",
            "json",
            "--page-size",
            "2",
        ],
        pids.path(),
    );
    check_session(&out, &stderr);
}

#[test]
fn python_client_over_http_with_token() {
    if !python_with_mcp() {
        return;
    }
    let pids = tempfile::tempdir().unwrap();
    let token = "tok-3f9a1c-never-logged";
    let mut server = Command::new(BIN)
        .args([
            "serve",
            "tools.tool",
            "--bind",
            "bindings.toml",
            "--log",
            "json",
            "--page-size",
            "2",
            "--http",
            "127.0.0.1:0",
            "--token-env",
            "TOOLDEF_TEST_TOKEN",
        ])
        .env("TOOLDEF_TEST_TOKEN", token)
        .env("TOOLDEF_TEST_PID_DIR", pids.path())
        .current_dir(fixtures())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tooldef serve starts");
    let mut err = BufReader::new(server.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("serving MCP on ")
        .unwrap_or_else(|| panic!("no address line, got {first:?}"))
        .to_string();
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let client = std::panic::catch_unwind(|| run_client(&["http", &url, token], pids.path()));
    let _ = server.kill();
    let _ = server.wait();
    let stderr = first + &rest.join().unwrap();
    let (out, _) = client.unwrap_or_else(|e| std::panic::resume_unwind(e));

    assert_eq!(
        out["http_no_token"]["status"], 401,
        "{}",
        out["http_no_token"]
    );
    assert_eq!(out["http_no_token"]["www_authenticate"], "Bearer");
    assert_eq!(out["http_wrong_token"]["status"], 401);
    check_session(&out, &stderr);
    assert!(
        !stderr.contains(token),
        "the token appears in the server's stderr:\n{stderr}"
    );
}

/// `tooldef serve` with a bindings file holding `text`, in a directory of its own.
fn serve_with_bindings(text: &str) -> (Output, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad-bindings.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .arg(fixtures().join("tools.tool"))
        .arg("--bind")
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .expect("tooldef runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

#[test]
fn bindings_errors_stop_the_server_at_startup() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "an unknown tool",
            "[tools.ecoh]\ncommand = [\"python3\", \"echo.py\"]\n",
            &[
                "[tools.ecoh]",
                "no tool named `ecoh`",
                "did you mean `echo`?",
            ],
        ),
        (
            "a command that cannot be started",
            "[tools.echo]\ncommand = [\"tooldef-no-such-program\"]\n",
            &[
                "[tools.echo].command",
                "`tooldef-no-such-program` cannot be started",
                "on PATH",
            ],
        ),
        (
            "a relative program that does not exist",
            "[tools.echo]\ncommand = [\"./missing.sh\"]\n",
            &["[tools.echo].command", "`./missing.sh` cannot be started"],
        ),
        (
            "a cwd that does not exist",
            "[tools.echo]\ncommand = [\"python3\"]\ncwd = \"no-such-dir\"\n",
            &["[tools.echo].cwd", "no-such-dir is not a directory"],
        ),
        (
            "malformed TOML",
            "[tools.echo\ncommand = [\"python3\"]\n",
            &["line 1", "unclosed table"],
        ),
        (
            "an unknown key",
            "[tools.echo]\ncommand = [\"python3\"]\ntimeout = 5\n",
            &["unknown field `timeout`"],
        ),
    ];
    for (what, text, wants) in cases {
        let (out, stderr) = serve_with_bindings(text);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(out.stdout.is_empty(), "{what}: nothing on stdout");
        assert!(
            stderr.contains("bad-bindings.toml"),
            "{what}: the message names the file: {stderr}"
        );
        for want in *wants {
            assert!(stderr.contains(want), "{what}: {want:?} not in {stderr}");
        }
    }
}
